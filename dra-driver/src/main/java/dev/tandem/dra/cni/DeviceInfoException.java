package dev.tandem.dra.cni;

/**
 * A Device Information file cannot be written or removed; the message names the file, the device
 * and what to do.
 */
public final class DeviceInfoException extends RuntimeException {

  public DeviceInfoException(String message, Throwable cause) {
    super(message, cause);
  }
}
