package dev.tandem.deviceplugin.gpu;

import dev.tandem.topology.model.Device;
import java.util.Optional;

/**
 * Whether a GPU is usable now, in the NVIDIA driver's view; empty when the probe cannot tell. May
 * block.
 */
@FunctionalInterface
public interface GpuHealthProbe {

  Optional<Boolean> healthy(Device gpu);
}
