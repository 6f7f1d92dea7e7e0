package dev.tandem.api.claims;

import java.util.Map;

/**
 * A device as a ResourceSlice publishes it, reduced to what claim allocation reads: its name, the
 * DeviceClass that selects it, and its attributes (qualified name to value; an attribute the driver
 * leaves out is absent).
 */
public record DraDevice(String name, String deviceClass, Map<String, String> attributes) {

  public DraDevice {
    attributes = Map.copyOf(attributes);
  }
}
