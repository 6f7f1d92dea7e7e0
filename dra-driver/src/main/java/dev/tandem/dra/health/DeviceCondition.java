package dev.tandem.dra.health;

/**
 * The health of one device of the pool as the kubelet's health stream carries it.
 *
 * @param pool the pool (the node's name)
 * @param device the DRA device name
 * @param health what the driver knows
 * @param message why, empty for a healthy device; at most {@link #MAX_MESSAGE} characters
 */
public record DeviceCondition(String pool, String device, Health health, String message) {

  /** The longest message the kubelet keeps whole. */
  public static final int MAX_MESSAGE = 1024;

  /** The three states of {@code v1.DRAResourceHealth}. */
  public enum Health {
    /** The driver cannot tell (its last look at the node failed). */
    UNKNOWN,
    /** Published without a taint. */
    HEALTHY,
    /** Published with a taint: claims that do not tolerate it do not get the device. */
    UNHEALTHY
  }

  public DeviceCondition {
    if (message.length() > MAX_MESSAGE) {
      message = message.substring(0, MAX_MESSAGE - 3) + "...";
    }
  }
}
