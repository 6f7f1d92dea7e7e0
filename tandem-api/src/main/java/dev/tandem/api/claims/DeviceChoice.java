package dev.tandem.api.claims;

/**
 * What one request of a claim asks for: {@code count} devices of a DeviceClass. A request given
 * exactly holds one choice without a name ({@code exactly}); a request with alternatives holds
 * several, each named ({@code firstAvailable}, a subrequest referred to as {@code
 * <request>/<name>}).
 *
 * @param name the subrequest's name, or null for {@code exactly}
 * @param deviceClass the DeviceClass's name
 * @param count how many devices ({@code allocationMode: ExactCount})
 */
public record DeviceChoice(String name, String deviceClass, int count) {

  public DeviceChoice {
    if (count < 1) {
      throw new IllegalArgumentException(
          "a device choice asks for at least 1 device, got " + count);
    }
  }
}
