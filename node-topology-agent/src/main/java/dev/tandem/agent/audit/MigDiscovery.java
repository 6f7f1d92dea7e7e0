package dev.tandem.agent.audit;

import dev.tandem.api.crd.MigEntry;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.api.identity.MigLayout;
import dev.tandem.discovery.DiscoveryException;
import dev.tandem.discovery.nvml.MigGpu;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's MIG layout: which GPU each MIG device the kubelet reports belongs to. NVML is read
 * only when it is useful: when the kubelet reports a MIG id of the current form ({@code
 * MIG-<uuid>}, which names no GPU) that the layout does not know yet; again when such ids change (a
 * MIG reconfiguration gives new UUIDs) or, after a failure, every {@code retry}. A node whose
 * kubelet reports no MIG id never loads the library. A failure is one WARN per distinct error and a
 * note in the status; the audit and the units go on without MIG (those GPUs are counted from the
 * tree). Blocking: call it on a worker thread, from one thread at a time.
 */
public final class MigDiscovery {

  private static final Logger LOG = LoggerFactory.getLogger(MigDiscovery.class);

  private final String library;
  private final Supplier<List<MigGpu>> nvml;
  private final Clock clock;
  private final Duration retry;
  private MigLayout layout = MigLayout.NONE;
  private Set<String> askedFor = Set.of();
  private Instant askedAt;
  private String failure;

  /**
   * @param library the NVML library, as messages name it
   * @param nvml reads the GPUs with MIG enabled (blocking), throwing {@link DiscoveryException}
   * @param retry how long after a failed reading the same MIG ids make it try again
   */
  public MigDiscovery(String library, Supplier<List<MigGpu>> nvml, Clock clock, Duration retry) {
    this.library = library;
    this.nvml = nvml;
    this.clock = clock;
    this.retry = retry;
  }

  /**
   * The layout for the kubelet's allocatable ids (of every resource: NVIDIA's {@code mixed}
   * strategy offers MIG devices under resources of their own); adds a note when NVML failed.
   */
  public MigLayout layout(Machine machine, Collection<String> allocatable, List<String> notes) {
    Set<String> unknown = new TreeSet<>();
    boolean anyMig = false;
    for (String id : allocatable) {
      String device = withoutReplica(id);
      if (MigLayout.isMig(device)) {
        anyMig = true;
        if (layout.gpuOf(device).isEmpty()) {
          unknown.add(device);
        }
      }
    }
    if (!anyMig) {
      layout = MigLayout.NONE;
      askedFor = Set.of();
      failure = null;
      return layout;
    }
    Instant now = clock.instant();
    boolean again =
        !unknown.equals(askedFor)
            || (failure != null && askedAt != null && !now.isBefore(askedAt.plus(retry)));
    if (!unknown.isEmpty() && again) {
      askedFor = Set.copyOf(unknown);
      askedAt = now;
      read(machine, unknown, notes);
    }
    if (failure != null) {
      notes.add(failure);
    }
    return layout;
  }

  private void read(Machine machine, Set<String> unknown, List<String> notes) {
    try {
      List<MigGpu> gpus = nvml.get();
      layout = MigLayout.of(entries(machine, gpus, notes));
      failure = null;
      LOG.info(
          "Node {}: MIG devices of {} GPU(s) read through NVML ({})",
          machine.nodeName(),
          gpus.size(),
          library);
    } catch (DiscoveryException e) {
      String text =
          "the kubelet reports MIG devices ("
              + unknown.size()
              + ", e.g. "
              + unknown.iterator().next()
              + ") that only NVML can map to their GPUs, and NVML ("
              + library
              + ") cannot be read: "
              + e.getMessage()
              + "; until it can, those GPUs are counted from the tree (see docs/troubleshooting.md,"
              + " MIG)";
      if (!text.equals(failure)) {
        LOG.warn("Node {}: {}", machine.nodeName(), text);
      }
      failure = text;
    }
  }

  /** Each NVML GPU as the tree's GPU of that UUID, else of that bus id. */
  private static List<MigEntry> entries(Machine machine, List<MigGpu> gpus, List<String> notes) {
    DeviceIds ids = DeviceIds.of(machine);
    List<MigEntry> out = new ArrayList<>();
    for (MigGpu g : gpus) {
      Optional<Device> d =
          ids.device(g.uuid())
              .or(() -> g.address() == null ? Optional.empty() : ids.device(g.address().toString()))
              .filter(x -> x.kind() == DeviceKind.GPU);
      if (d.isPresent()) {
        out.add(new MigEntry(d.get().id(), g.migDevices()));
      } else {
        notes.add(
            "NVML reports GPU "
                + g.uuid()
                + " at "
                + (g.address() == null ? "an unknown bus id" : g.address())
                + " with MIG devices, but discovery found no such GPU; its MIG devices are not"
                + " mapped");
      }
    }
    return out;
  }

  private static String withoutReplica(String id) {
    int replica = id.indexOf(DeviceIds.REPLICA_SEPARATOR);
    return replica > 0 ? id.substring(0, replica) : id;
  }
}
