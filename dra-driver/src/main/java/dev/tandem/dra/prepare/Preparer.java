package dev.tandem.dra.prepare;

import dev.tandem.api.identity.DeviceIds;
import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.cdi.CdiException;
import dev.tandem.dra.cdi.ClaimSpec;
import dev.tandem.dra.cdi.NvidiaGpuCdi;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NodePrepareResources and NodeUnprepareResources for one claim, without gRPC or an API client:
 *
 * <ul>
 *   <li><b>Prepare</b> reads the claim ({@link ClaimSource}) by namespace and name, checks its UID
 *       and allocation, checks that each of this driver's devices is in this node's pool and is a
 *       device of the node, writes a CDI spec for its HCAs ({@link ClaimSpec}), gives each GPU the
 *       CDI name NVIDIA's toolkit gives it ({@link NvidiaGpuCdi}), and records the claim in the
 *       {@link Checkpoint} before it answers. A claim already prepared is answered from the
 *       checkpoint, without asking the API server (its spec is written again if it is gone).
 *   <li><b>Unprepare</b> removes the claim's CDI spec (by its name, whether or not the checkpoint
 *       knows the claim) and forgets the claim. Unpreparing a claim never prepared succeeds.
 * </ul>
 *
 * <p>A failure is the claim's error, naming the claim, the device and what to do; nothing is left
 * half done (a spec written for a claim that could not be recorded is removed). One claim at a time
 * (the methods are synchronized). Blocking: call on a worker thread.
 */
public final class Preparer {

  private static final Logger LOG = LoggerFactory.getLogger(Preparer.class);

  private final String driver;
  private final Supplier<Machine> machine;
  private final ClaimSource claims;
  private final CdiDirectory cdi;
  private final Checkpoint checkpoint;
  private final String hcaResource;

  /**
   * @param driver this driver's name: allocation results of other drivers are theirs
   * @param machine the node's tree now (its name is the pool's)
   * @param hcaResource names the {@code PCIDEVICE_<RESOURCE>} variable ({@code rdma/hca})
   */
  public Preparer(
      String driver,
      Supplier<Machine> machine,
      ClaimSource claims,
      CdiDirectory cdi,
      Checkpoint checkpoint,
      String hcaResource) {
    this.driver = driver;
    this.machine = machine;
    this.claims = claims;
    this.cdi = cdi;
    this.checkpoint = checkpoint;
    this.hcaResource = hcaResource;
  }

  public synchronized ClaimOutcome prepare(ClaimRef ref) {
    if (!ClaimRef.isUid(ref.uid())) {
      return ClaimOutcome.failed(notUid(ref));
    }
    Optional<PreparedClaim> done = checkpoint.get(ref.uid());
    if (done.isPresent() && (done.get().cdiSpec() == null || cdi.exists(done.get().cdiSpec()))) {
      return ClaimOutcome.prepared(done.get().devices());
    }
    try {
      PreparedClaim prepared = prepareAnew(ref);
      LOG.info("prepared claim {} ({} device(s))", ref, prepared.devices().size());
      return ClaimOutcome.prepared(prepared.devices());
    } catch (Refused e) {
      LOG.warn("claim {} not prepared: {}", ref, e.getMessage());
      return ClaimOutcome.failed(e.getMessage());
    } catch (CdiException | CheckpointException e) {
      LOG.warn("claim {} not prepared: {}", ref, e.getMessage());
      return ClaimOutcome.failed("claim " + ref + ": " + e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("claim {} not prepared: {}", ref, e.toString());
      return ClaimOutcome.failed(
          "claim " + ref + " cannot be read from the API server: " + e.getMessage());
    }
  }

  /** Undoes Prepare; the claim's error, empty when it is undone. */
  public synchronized String unprepare(ClaimRef ref) {
    if (!ClaimRef.isUid(ref.uid())) {
      return notUid(ref);
    }
    try {
      cdi.remove(ClaimSpec.fileName(ref.uid()));
      if (checkpoint.remove(ref.uid())) {
        LOG.info("unprepared claim {}", ref);
      }
      return "";
    } catch (CdiException | CheckpointException e) {
      LOG.warn("claim {} not unprepared: {}", ref, e.getMessage());
      return "claim " + ref + ": " + e.getMessage();
    }
  }

  private static String notUid(ClaimRef ref) {
    return "claim "
        + ref
        + ": the kubelet sent UID '"
        + ref.uid()
        + "', which is not a Kubernetes UID (letters, digits and '-'): nothing was done; a kubelet"
        + " of a supported release sends the claim's metadata.uid";
  }

  private PreparedClaim prepareAnew(ClaimRef ref) {
    ClaimAllocation claim =
        claims
            .claim(ref.namespace(), ref.name())
            .orElseThrow(
                () ->
                    new Refused(
                        "claim "
                            + ref
                            + " is not in the API server (deleted before its pod started?)"));
    if (!ref.uid().equals(claim.uid())) {
      throw new Refused(
          "claim "
              + ref
              + " has UID "
              + claim.uid()
              + ", not "
              + ref.uid()
              + " as the kubelet asked: it was deleted and created again, and the kubelet asks for"
              + " the new one when it starts the pod again");
    }
    if (!claim.allocated()) {
      throw new Refused(
          "claim " + ref + " is not allocated: the scheduler allocates it before the pod starts");
    }
    Machine node = machine.get();
    List<Granted> granted = granted(ref, claim, node);
    List<ClaimSpec.GrantedHca> hcas = new ArrayList<>();
    granted.stream()
        .filter(g -> g.device().kind() == DeviceKind.HCA)
        .forEach(g -> hcas.add(new ClaimSpec.GrantedHca(g.result().device(), g.device())));
    ClaimSpec spec =
        hcas.isEmpty() ? null : ClaimSpec.of(node.nodeName(), ref.uid(), hcaResource, hcas);
    List<PreparedDevice> devices = new ArrayList<>();
    for (Granted g : granted) {
      String cdiId =
          g.device().kind() == DeviceKind.GPU
              ? gpuCdi(ref, g)
              : spec.cdiIds().get(g.result().device());
      devices.add(
          new PreparedDevice(
              List.of(g.result().request()),
              g.result().pool(),
              g.result().device(),
              List.of(cdiId)));
    }
    PreparedClaim prepared =
        new PreparedClaim(
            ref.uid(), ref.namespace(), ref.name(), devices, spec == null ? null : spec.fileName());
    if (spec != null) {
      cdi.write(spec.fileName(), spec.spec());
    }
    try {
      checkpoint.put(prepared);
    } catch (CheckpointException e) {
      if (spec != null) {
        cdi.remove(spec.fileName());
      }
      throw e;
    }
    return prepared;
  }

  private record Granted(AllocatedDevice result, Device device) {}

  /** This driver's devices of the claim, each checked to be a device of this node's pool. */
  private List<Granted> granted(ClaimRef ref, ClaimAllocation claim, Machine node) {
    DeviceIds ids = DeviceIds.of(node);
    List<Granted> out = new ArrayList<>();
    for (AllocatedDevice d : claim.devices()) {
      if (!driver.equals(d.driver())) {
        continue;
      }
      if (!node.nodeName().equals(d.pool())) {
        throw new Refused(
            "claim "
                + ref
                + " was given device "
                + d.device()
                + " of pool "
                + d.pool()
                + ", but this driver serves pool "
                + node.nodeName()
                + " of node "
                + node.nodeName()
                + ": the claim was allocated for another node; delete the pod so that it is"
                + " scheduled again");
      }
      Device device =
          ids.draDevice(d.device())
              .orElseThrow(
                  () ->
                      new Refused(
                          "claim "
                              + ref
                              + " was given device "
                              + d.device()
                              + ", which node "
                              + node.nodeName()
                              + " does not have (gone since the claim was allocated?); delete"
                              + " the pod so that its claim is allocated again"));
      out.add(new Granted(d, device));
    }
    return out;
  }

  private static String gpuCdi(ClaimRef ref, Granted g) {
    try {
      return NvidiaGpuCdi.id(g.device());
    } catch (CdiException e) {
      throw new Refused("claim " + ref + ", device " + g.result().device() + ": " + e.getMessage());
    }
  }

  /** The claim cannot be prepared; the message is its error. */
  private static final class Refused extends RuntimeException {
    Refused(String message) {
      super(message);
    }
  }
}
