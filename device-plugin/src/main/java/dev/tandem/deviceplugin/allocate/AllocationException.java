package dev.tandem.deviceplugin.allocate;

/** An Allocate request the plugin cannot honour; the message names the devices and the fix. */
public class AllocationException extends RuntimeException {

  public AllocationException(String message) {
    super(message);
  }
}
