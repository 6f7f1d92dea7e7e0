package dev.tandem.deviceplugin.inventory;

import java.util.Optional;

/** Whether an HCA's port is usable now; empty when the probe cannot tell. May block. */
@FunctionalInterface
public interface HealthProbe {

  Optional<Boolean> healthy(String ibDevice);
}
