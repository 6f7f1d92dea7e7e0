package dev.tandem.dra.slices;

/**
 * A taint the driver puts on a device it publishes but that should not be allocated (an HCA whose
 * RDMA driver is not loaded, a port that is down): claims that do not tolerate it do not get the
 * device. Needs the {@code DRADeviceTaints} feature gate in the cluster; without it the API server
 * drops the taint (docs/dra.md).
 *
 * @param key a label name, e.g. {@code tandem.dev/unhealthy}
 * @param value a label value: why, e.g. {@code no-rdma-driver}
 * @param effect {@code NoSchedule} (or {@code NoExecute}, {@code None})
 */
public record Taint(String key, String value, String effect) {

  /** The key of every taint this driver puts on an unhealthy device. */
  public static final String UNHEALTHY = "tandem.dev/unhealthy";

  public static final String NO_SCHEDULE = "NoSchedule";

  /** An unhealthy device, for {@code reason}: new claims do not get it. */
  public static Taint unhealthy(String reason) {
    return new Taint(UNHEALTHY, reason, NO_SCHEDULE);
  }
}
