package dev.tandem.topology.request;

import dev.tandem.topology.locality.LocalityIndex;
import dev.tandem.topology.model.Locality;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Splits a pod's planned devices between its containers the way the kubelet's device manager hands
 * them out: init containers first, then app containers, each in spec order; a container takes the
 * devices an ended init container left for reuse before new ones; an ordinary init container's
 * devices become reusable once it has run, a sidecar's (restartable init container) and an app
 * container's never do. So a pod needs its {@link PodDemand#effective effective request} of new
 * devices, and the split uses exactly those. New HCAs go to a container nearest its GPUs. Pure.
 */
public final class ContainerSplit {

  private final String gpuResource;
  private final String hcaResource;
  private final LocalityIndex index;

  /**
   * @param index the node's localities, to give a container the HCAs nearest its GPUs; null to take
   *     them in plan order
   */
  public ContainerSplit(String gpuResource, String hcaResource, LocalityIndex index) {
    this.gpuResource = gpuResource;
    this.hcaResource = hcaResource;
    this.index = index;
  }

  /**
   * One share per container that asks for GPUs or HCAs, init containers first. A container gets
   * fewer devices than it asks for only when the plan holds fewer than the pod's effective request.
   */
  public List<ContainerShare> split(
      List<ContainerDemand> init,
      List<ContainerDemand> app,
      List<String> gpuIds,
      List<String> hcaIds) {
    Pool gpus = new Pool(gpuIds);
    Pool hcas = new Pool(hcaIds);
    List<ContainerShare> out = new ArrayList<>();
    for (ContainerDemand c : init) {
      share(c, true, gpus, hcas).ifPresent(out::add);
    }
    for (ContainerDemand c : app) {
      share(c, false, gpus, hcas).ifPresent(out::add);
    }
    return out;
  }

  private Optional<ContainerShare> share(ContainerDemand c, boolean init, Pool gpus, Pool hcas) {
    int g = Math.toIntExact(c.units(gpuResource));
    int h = Math.toIntExact(c.units(hcaResource));
    if (g == 0 && h == 0) {
      return Optional.empty();
    }
    boolean reusable = init && !c.sidecar();
    List<String> myGpus = gpus.take(g, reusable, List.of());
    List<String> myHcas = hcas.take(h, reusable, myGpus);
    return Optional.of(new ContainerShare(c.name(), init, myGpus, myHcas));
  }

  /** One resource's planned ids: those not handed out yet, and those an ended init left. */
  private final class Pool {
    private final List<String> fresh;
    private final List<String> reusable = new ArrayList<>();

    Pool(List<String> ids) {
      this.fresh = new ArrayList<>(ids);
    }

    List<String> take(int n, boolean leaveForReuse, List<String> near) {
      List<String> out = new ArrayList<>(n);
      for (String id : reusable) {
        if (out.size() == n) {
          break;
        }
        out.add(id);
      }
      if (!leaveForReuse) {
        out.forEach(reusable::remove);
      }
      List<String> fresh = nearestFirst(near);
      for (String id : fresh) {
        if (out.size() == n) {
          break;
        }
        out.add(id);
        this.fresh.remove(id);
        if (leaveForReuse) {
          reusable.add(id);
        }
      }
      return out;
    }

    private List<String> nearestFirst(List<String> gpus) {
      if (index == null || gpus.isEmpty()) {
        return List.copyOf(fresh);
      }
      return fresh.stream().sorted(Comparator.comparing((String h) -> nearest(h, gpus))).toList();
    }

    private Locality nearest(String hca, List<String> gpus) {
      Locality best = Locality.SYS;
      for (String g : gpus) {
        Locality l = index.locality(g, hca);
        if (l.compareTo(best) < 0) {
          best = l;
        }
      }
      return best;
    }
  }
}
