package dev.tandem.extender.state;

/** The extended resource names Tandem places together. */
public final class Resources {

  public static final String GPU = "nvidia.com/gpu";
  public static final String HCA = "rdma/hca";

  private Resources() {}
}
