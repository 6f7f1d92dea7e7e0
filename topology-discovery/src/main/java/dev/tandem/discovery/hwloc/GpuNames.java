package dev.tandem.discovery.hwloc;

import java.util.List;

/**
 * Picks a GPU's human name from its OS devices: {@code cuda0} before {@code rsmi0}, {@code nvml0},
 * {@code opencl0d0}, DRM names.
 */
final class GpuNames {

  private static final List<String> PREFERENCE = List.of("cuda", "rsmi", "nvml", "opencl", "card");

  private GpuNames() {}

  static String pick(List<String> osdevNames) {
    for (String prefix : PREFERENCE) {
      for (String n : osdevNames) {
        if (n.startsWith(prefix)) {
          return n;
        }
      }
    }
    return null;
  }
}
