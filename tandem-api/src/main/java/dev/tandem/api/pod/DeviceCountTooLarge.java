package dev.tandem.api.pod;

/**
 * A well-formed quantity of more devices than any node has ({@link DeviceQuantity#MAX_UNITS}): the
 * API server accepts such a pod, which is then simply unschedulable, not malformed.
 */
public final class DeviceCountTooLarge extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  DeviceCountTooLarge(String message) {
    super(message);
  }
}
