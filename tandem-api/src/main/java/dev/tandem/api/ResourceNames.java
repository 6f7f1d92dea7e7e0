package dev.tandem.api;

/** The extended resources Tandem governs, under the names they have by default. */
public final class ResourceNames {

  /** Whole GPUs, as NVIDIA's device plugin (or Tandem's joint mode) advertises them. */
  public static final String GPU = "nvidia.com/gpu";

  /** RDMA HCAs (or VFs, or shared slots), as Tandem's device plugin advertises them. */
  public static final String HCA = "rdma/hca";

  private ResourceNames() {}
}
