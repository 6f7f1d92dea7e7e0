package dev.tandem.api.identity;

import dev.tandem.api.crd.MigEntry;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Which GPU each MIG device of a node belongs to, as NVML reports it on the node and the agent
 * publishes it ({@code status.mig}). Current drivers name a MIG device by a UUID of its own ({@code
 * MIG-<uuid>}) that says nothing of its GPU; this layout is what maps it back. The older form
 * ({@code MIG-GPU-<gpu uuid>/<gi>/<ci>}) names its GPU and needs no layout ({@link #legacyParent}).
 * Immutable.
 */
public final class MigLayout {

  /** No MIG device known. */
  public static final MigLayout NONE = new MigLayout(Map.of());

  /** How NVIDIA's plugin and NVML begin every MIG device id. */
  public static final String PREFIX = "MIG-";

  private static final String LEGACY_PREFIX = "MIG-GPU-";

  private final Map<String, String> gpuByMig;

  private MigLayout(Map<String, String> gpuByMig) {
    this.gpuByMig = gpuByMig;
  }

  /** The layout of these entries (as published); entries without a GPU are skipped. */
  public static MigLayout of(List<MigEntry> entries) {
    if (entries == null || entries.isEmpty()) {
      return NONE;
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (MigEntry e : entries) {
      if (e.gpu() != null) {
        e.devices().forEach(mig -> out.put(mig, e.gpu()));
      }
    }
    return out.isEmpty() ? NONE : new MigLayout(Collections.unmodifiableMap(out));
  }

  /** As {@code status.mig}: one entry per GPU, MIG devices in the order given. */
  public List<MigEntry> entries() {
    Map<String, List<String>> byGpu = new LinkedHashMap<>();
    gpuByMig.forEach((mig, gpu) -> byGpu.computeIfAbsent(gpu, g -> new ArrayList<>()).add(mig));
    List<MigEntry> out = new ArrayList<>();
    byGpu.forEach((gpu, migs) -> out.add(new MigEntry(gpu, migs)));
    return out;
  }

  /** The tree id of the GPU a MIG device id (either form) belongs to; empty when unknown. */
  public Optional<String> gpuOf(String migId) {
    String known = gpuByMig.get(migId);
    return known != null ? Optional.of(known) : legacyParent(migId);
  }

  /** Whether the id names a MIG device. */
  public static boolean isMig(String id) {
    return id != null && id.startsWith(PREFIX);
  }

  /**
   * The GPU UUID a MIG id of the older form names: {@code MIG-GPU-<uuid>/<gi>/<ci>} stands for
   * {@code GPU-<uuid>}; empty for any other id.
   */
  public static Optional<String> legacyParent(String id) {
    if (id == null || !id.startsWith(LEGACY_PREFIX)) {
      return Optional.empty();
    }
    String[] parts = id.substring(PREFIX.length()).split("/", -1);
    if (parts.length != 3 || parts[0].length() <= "GPU-".length()) {
      return Optional.empty();
    }
    return isNumber(parts[1]) && isNumber(parts[2]) ? Optional.of(parts[0]) : Optional.empty();
  }

  /** Whether the layout knows no MIG device. */
  public boolean isEmpty() {
    return gpuByMig.isEmpty();
  }

  private static boolean isNumber(String s) {
    return !s.isEmpty() && s.chars().allMatch(c -> c >= '0' && c <= '9');
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof MigLayout m && m.gpuByMig.equals(gpuByMig);
  }

  @Override
  public int hashCode() {
    return Objects.hash(gpuByMig);
  }

  @Override
  public String toString() {
    return "MigLayout" + gpuByMig;
  }
}
