package dev.tandem.deviceplugin.cni;

/**
 * The Device Information directory or one of its files cannot be written; the message names the
 * directory or file, the setting and what to do.
 */
public class DeviceInfoException extends RuntimeException {

  public DeviceInfoException(String message, Throwable cause) {
    super(message, cause);
  }
}
