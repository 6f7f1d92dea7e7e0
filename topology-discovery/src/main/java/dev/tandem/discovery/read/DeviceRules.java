package dev.tandem.discovery.read;

import java.util.Locale;

/**
 * Which PCI functions are GPUs and HCAs, the same for every source (the rule of {@code
 * shared/topologies/README.md}).
 *
 * <ul>
 *   <li>GPU: vendor 10de with class 0300/0302; vendor 1002 with class 0380/1200, or 0300 when a
 *       compute driver (OpenCL/RSMI OS device, amdgpu) claims it;
 *   <li>HCA: a function with an OpenFabrics (ibverbs) device (ConnectX {@code mlx5_*}, Alibaba
 *       eRDMA {@code erdma_*}, …); without one (its RDMA driver not loaded), vendor 15b3 with class
 *       0207/0200/0c06, or Alibaba's Elastic RDMA adapter, 1ded:107f or 1ded:5007 (the ids the
 *       kernel's {@code erdma} driver binds).
 * </ul>
 */
public final class DeviceRules {

  public static final int NVIDIA = 0x10de;
  public static final int AMD = 0x1002;
  public static final int MELLANOX = 0x15b3;
  public static final int ALIBABA = 0x1ded;

  private DeviceRules() {}

  /**
   * @param classId the 16-bit class and subclass, e.g. 0x0302
   * @param amdCompute an AMD compute driver or OS device is present
   */
  public static boolean isGpu(int vendor, int classId, boolean amdCompute) {
    if (vendor == NVIDIA) {
      return classId == 0x0300 || classId == 0x0302;
    }
    if (vendor == AMD) {
      return classId == 0x0380 || classId == 0x1200 || (classId == 0x0300 && amdCompute);
    }
    return false;
  }

  /**
   * An HCA without an ibverbs device name: a Mellanox network/InfiniBand function, or an Alibaba
   * Elastic RDMA adapter.
   */
  public static boolean isRdmaFunction(int vendor, int device, int classId) {
    if (vendor == ALIBABA) {
      return device == 0x107f || device == 0x5007;
    }
    return vendor == MELLANOX && (classId == 0x0207 || classId == 0x0200 || classId == 0x0c06);
  }

  /**
   * A ConnectX-8 Data Direct function: {@code 15b3:2100}, the id the kernel's mlx5 Data Direct
   * driver binds ({@code drivers/infiniband/hw/mlx5/data_direct.c}); a DMA engine, not an HCA.
   */
  public static boolean isDataDirect(int vendor, int device) {
    return vendor == MELLANOX && device == 0x2100;
  }

  public static boolean isBridge(int classId) {
    return classId == 0x0604;
  }

  /** The ibverbs port state name for its number (hwloc's Port1State, sysfs {@code 4: ACTIVE}). */
  public static String portState(String raw) {
    if (raw == null || raw.isBlank()) {
      return null;
    }
    String s = raw.trim();
    int colon = s.indexOf(':');
    if (colon >= 0) {
      return s.substring(colon + 1).trim().toUpperCase(Locale.ROOT);
    }
    return switch (s) {
      case "0" -> "NOP";
      case "1" -> "DOWN";
      case "2" -> "INIT";
      case "3" -> "ARMED";
      case "4" -> "ACTIVE";
      case "5" -> "ACTIVE_DEFER";
      default -> s.toUpperCase(Locale.ROOT);
    };
  }

  public static int hex(String text) {
    String s = text.trim();
    if (s.startsWith("0x") || s.startsWith("0X")) {
      s = s.substring(2);
    }
    return Integer.parseInt(s, 16);
  }
}
