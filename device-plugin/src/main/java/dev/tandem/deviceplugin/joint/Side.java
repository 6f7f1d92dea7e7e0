package dev.tandem.deviceplugin.joint;

/** The two resources of joint mode. */
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
