package dev.tandem.topology.model;

/** The two kinds of device Tandem places together. */
public enum DeviceKind {
  GPU,
  HCA
}
