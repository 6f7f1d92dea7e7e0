package dev.tandem.deviceplugin.preferred;

/** The two resources a preferred allocation can be for: full GPUs and HCA devices. */
public enum Side {
  GPU,
  HCA;

  public Side other() {
    return this == GPU ? HCA : GPU;
  }

  public String label() {
    return this == GPU ? "GPU" : "HCA";
  }
}
