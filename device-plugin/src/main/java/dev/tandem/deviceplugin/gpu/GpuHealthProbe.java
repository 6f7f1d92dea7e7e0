package dev.tandem.deviceplugin.gpu;

import dev.tandem.topology.model.Device;
import java.util.Optional;

/**
 * Whether a GPU is usable now, in the NVIDIA driver's view; empty when the probe cannot tell. May
 * block. {@link #close} releases what the probe holds (NVML's session); most hold nothing.
 */
@FunctionalInterface
public interface GpuHealthProbe extends AutoCloseable {

  Optional<Boolean> healthy(Device gpu);

  @Override
  default void close() {}
}
