package dev.tandem.dra.cdi;

import dev.tandem.topology.model.Device;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The GPUs NVIDIA's container toolkit has written a CDI spec for on this node: the names of the
 * devices of kind {@code nvidia.com/gpu} in the CDI directories runtimes read ({@code /etc/cdi},
 * {@code /var/run/cdi}; read as runtimes read them: {@link CdiSpecFiles}). In joint mode the driver
 * hands out {@link NvidiaGpuCdi#id} for a GPU, so it checks at start that each GPU has one.
 * Blocking file I/O.
 */
public final class NvidiaCdiSpecs {

  /** The directories container runtimes read CDI specs from, by default. */
  public static final List<Path> DIRECTORIES =
      List.of(Path.of("/etc/cdi"), Path.of("/var/run/cdi"));

  private NvidiaCdiSpecs() {}

  /**
   * The names of the {@code nvidia.com/gpu} devices in the specs of these directories (a missing
   * directory has none; a file that is not a spec is skipped, as the runtime skips it).
   */
  public static Set<String> gpuNames(List<Path> directories) {
    return scan(directories).names();
  }

  /** What the directories hold: the GPU names, and each spec file that could not be read. */
  private record Scan(Set<String> names, Map<Path, String> unreadable) {}

  private static Scan scan(List<Path> directories) {
    Set<String> names = new TreeSet<>();
    Map<Path, String> unreadable = new LinkedHashMap<>();
    for (Path dir : directories) {
      CdiSpecFiles.Listing listing = CdiSpecFiles.in(dir);
      listing.specs().stream()
          .filter(s -> NvidiaGpuCdi.KIND.equals(s.kind()))
          .forEach(s -> names.addAll(s.devices()));
      unreadable.putAll(listing.unreadable());
    }
    return new Scan(names, unreadable);
  }

  /**
   * Checks that NVIDIA's spec names every GPU by UUID.
   *
   * @throws CdiException naming the GPUs it does not name, the directories read and the fix
   */
  public static void requireAll(List<Device> gpus, List<Path> directories) {
    Scan scan = scan(directories);
    List<String> missing = new ArrayList<>();
    for (Device gpu : gpus) {
      if (!scan.names().contains(gpu.id())) {
        missing.add(gpu.id());
      }
    }
    if (!missing.isEmpty()) {
      throw new CdiException(
          "no CDI spec of NVIDIA's container toolkit names GPU "
              + String.join(", ", missing)
              + " (kind "
              + NvidiaGpuCdi.KIND
              + " in "
              + directories
              + "; runtimes read only *.json and *.yaml files there), and joint mode hands GPUs"
              + " out by that name: generate it on the node ("
              + "nvidia-ctk cdi generate --output=/var/run/cdi/nvidia.yaml, or enable the toolkit's"
              + " nvidia-cdi-refresh service), or run the driver without GPUs beside NVIDIA's own"
              + " GPU driver"
              + unreadable(scan.unreadable()));
    }
  }

  /** Files the runtime skips too, named so that a broken NVIDIA spec is not a mystery. */
  private static String unreadable(Map<Path, String> files) {
    if (files.isEmpty()) {
      return "";
    }
    List<String> each = new ArrayList<>();
    files.forEach((file, why) -> each.add(file + " (" + why + ")"));
    return "; these spec files could not be read and were skipped: " + String.join(", ", each);
  }
}
