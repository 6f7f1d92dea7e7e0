package dev.tandem.dra.prepare;

import dev.tandem.api.container.DeviceInfo;
import dev.tandem.api.identity.DeviceIds;
import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.cdi.CdiException;
import dev.tandem.dra.cdi.ClaimSpec;
import dev.tandem.dra.cdi.NvidiaGpuCdi;
import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PublishedDevice;
import dev.tandem.kit.files.HostDirectory;
import dev.tandem.kit.files.HostFileException;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * NodePrepareResources and NodeUnprepareResources for one claim, without gRPC or an API client:
 *
 * <ul>
 *   <li><b>Prepare</b> reads the claim ({@link ClaimSource}) by namespace and name, checks its UID
 *       and allocation, checks that each of this driver's devices is in this node's pool and is a
 *       device the driver publishes there now, writes a CDI spec for its HCAs ({@link ClaimSpec};
 *       an HCA shared by several of its requests once), a Device Information file for each of its
 *       SR-IOV VFs (the device plugin's, {@link DeviceInfo}), gives each GPU the CDI name NVIDIA's
 *       toolkit gives it ({@link NvidiaGpuCdi}), and records the claim in the {@link Checkpoint}
 *       before it answers. A claim already prepared is answered from the checkpoint, without asking
 *       the API server (its files are written again if one is gone).
 *   <li><b>Unprepare</b> removes the claim's CDI spec (by its name, whether or not the checkpoint
 *       knows the claim) and the Device Information files the checkpoint names, and forgets the
 *       claim. Unpreparing a claim never prepared succeeds.
 * </ul>
 *
 * <p>A failure is the claim's error, naming the claim, the device and what to do; nothing is left
 * half done (files written for a claim that could not be recorded are removed). One claim at a time
 * (the methods are synchronized). Blocking: call on a worker thread.
 */
public final class Preparer {

  private static final Logger LOG = LoggerFactory.getLogger(Preparer.class);

  /** The most characters of an exception's message shown in a claim's error. */
  private static final int CAUSE_SHOWN = 1_024;

  private final String driver;
  private final Supplier<NodePool> pool;
  private final ClaimSource claims;
  private final CdiDirectory cdi;
  private final HostDirectory deviceInfo;
  private final Checkpoint checkpoint;
  private final String hcaResource;

  /**
   * @param driver this driver's name: allocation results of other drivers are theirs
   * @param pool the devices this driver publishes on the node now (the pool is named after it)
   * @param deviceInfoDir where granted VFs' Device Information files go ({@code --device-info-dir})
   * @param hcaResource names the {@code PCIDEVICE_<RESOURCE>} variable and the Device Information
   *     files ({@code rdma/hca}), as the device plugin names them for its resource
   */
  public Preparer(
      String driver,
      Supplier<NodePool> pool,
      ClaimSource claims,
      CdiDirectory cdi,
      Path deviceInfoDir,
      Checkpoint checkpoint,
      String hcaResource) {
    this.driver = driver;
    this.pool = pool;
    this.claims = claims;
    this.cdi = cdi;
    this.deviceInfo =
        new HostDirectory(
            deviceInfoDir,
            "device-info",
            "Mount the host's "
                + deviceInfoDir
                + " read-write into the driver (a hostPath volume of type DirectoryOrCreate), or"
                + " point --device-info-dir at the directory the node's Multus reads");
    this.checkpoint = checkpoint;
    this.hcaResource = hcaResource;
  }

  public synchronized ClaimOutcome prepare(ClaimRef ref) {
    if (!ClaimRef.isUid(ref.uid())) {
      return ClaimOutcome.failed(notUid(ref));
    }
    if (!ref.isKubernetesName()) {
      return ClaimOutcome.failed(notName(ref));
    }
    Optional<PreparedClaim> done = checkpoint.get(ref.uid());
    if (done.isPresent() && filesThere(done.get())) {
      return ClaimOutcome.prepared(done.get().devices());
    }
    try {
      PreparedClaim prepared = prepareAnew(ref);
      LOG.info("prepared claim {} ({} device(s))", ref, prepared.devices().size());
      return ClaimOutcome.prepared(prepared.devices());
    } catch (Refused e) {
      LOG.warn("claim {} not prepared: {}", ref, e.getMessage());
      return ClaimOutcome.failed(e.getMessage());
    } catch (CdiException | HostFileException | CheckpointException e) {
      LOG.warn("claim {} not prepared: {}", ref, e.getMessage());
      return ClaimOutcome.failed("claim " + ref + ": " + e.getMessage());
    } catch (RuntimeException e) {
      LOG.error("claim {} not prepared: the driver failed", ref, e);
      return ClaimOutcome.failed(
          "claim "
              + ref
              + " not prepared: the driver failed ("
              + UntrustedText.shown(e.toString(), CAUSE_SHOWN)
              + "); this is a bug in Tandem: report it with the driver's log");
    }
  }

  /** Undoes Prepare; the claim's error, empty when it is undone. */
  public synchronized String unprepare(ClaimRef ref) {
    if (!ClaimRef.isUid(ref.uid())) {
      return notUid(ref);
    }
    try {
      cdi.remove(ClaimSpec.fileName(ref.uid()));
      checkpoint.get(ref.uid()).ifPresent(c -> c.deviceInfo().forEach(deviceInfo::remove));
      if (checkpoint.remove(ref.uid())) {
        LOG.info("unprepared claim {}", ref);
      }
      return "";
    } catch (CdiException | HostFileException | CheckpointException e) {
      LOG.warn("claim {} not unprepared: {}", ref, e.getMessage());
      return "claim " + ref + ": " + e.getMessage();
    }
  }

  private static String notUid(ClaimRef ref) {
    return "claim "
        + ref
        + ": the kubelet sent UID '"
        + UntrustedText.shown(ref.uid())
        + "', which is not a Kubernetes UID (letters, digits and '-'): nothing was done; a kubelet"
        + " of a supported release sends the claim's metadata.uid";
  }

  private static String notName(ClaimRef ref) {
    return "claim "
        + ref
        + ": the kubelet sent a namespace that is not a DNS label or a name that is not a DNS"
        + " subdomain (RFC 1123, at most "
        + ClaimRef.MAX_NAME_LENGTH
        + " characters), which no ResourceClaim has: nothing was done; a kubelet of a supported"
        + " release sends the claim's metadata";
  }

  /** The claim from the API server; refused when it is not there or cannot be read. */
  private ClaimAllocation read(ClaimRef ref) {
    Optional<ClaimAllocation> found;
    try {
      found = claims.claim(ref.namespace(), ref.name());
    } catch (RuntimeException e) {
      LOG.warn("claim {} cannot be read from the API server", ref, e);
      throw new Refused(
          "claim "
              + ref
              + " cannot be read from the API server: "
              + UntrustedText.shown(e.getMessage(), CAUSE_SHOWN));
    }
    ClaimAllocation claim =
        found.orElseThrow(
            () ->
                new Refused(
                    "claim "
                        + ref
                        + " is not in the API server (deleted before its pod started?)"));
    if (claim.devices().size() > ClaimAllocation.MAX_RESULTS) {
      throw new Refused(
          "claim "
              + ref
              + " has "
              + claim.devices().size()
              + " allocation results, more than the "
              + ClaimAllocation.MAX_RESULTS
              + " the API server allows (AllocationResultsMaxSize): not prepared; check what"
              + " answers as the API server at the driver's kubeconfig");
    }
    return claim;
  }

  private PreparedClaim prepareAnew(ClaimRef ref) {
    ClaimAllocation claim = read(ref);
    if (!ref.uid().equals(claim.uid())) {
      throw new Refused(
          "claim "
              + ref
              + " has UID "
              + UntrustedText.shown(claim.uid())
              + ", not "
              + ref.uid()
              + " as the kubelet asked: it was deleted and created again, and the kubelet asks for"
              + " the new one when it starts the pod again");
    }
    if (!claim.allocated()) {
      throw new Refused(
          "claim " + ref + " is not allocated: the scheduler allocates it before the pod starts");
    }
    NodePool node = pool.get();
    List<Granted> granted = granted(ref, claim, node);
    Map<String, ClaimSpec.GrantedHca> hcas = new LinkedHashMap<>();
    granted.stream()
        .filter(g -> g.device().kind() == DeviceKind.HCA)
        .forEach(
            g ->
                hcas.putIfAbsent(
                    g.result().device(),
                    new ClaimSpec.GrantedHca(g.result().device(), g.device())));
    ClaimSpec spec =
        hcas.isEmpty()
            ? null
            : ClaimSpec.of(node.nodeName(), ref.uid(), hcaResource, List.copyOf(hcas.values()));
    Map<DeviceInfo, String> vfs = deviceInfos(hcas.values());
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
            ref.uid(),
            ref.namespace(),
            ref.name(),
            devices,
            spec == null ? null : spec.fileName(),
            vfs.keySet().stream().map(DeviceInfo::fileName).toList());
    try {
      if (spec != null) {
        cdi.write(spec.fileName(), spec.spec());
        refuseRivals(spec.fileName(), specDevices(prepared));
      }
      vfs.forEach(
          (info, vf) ->
              deviceInfo.write(info.fileName(), info.json().getBytes(StandardCharsets.UTF_8), vf));
      checkpoint.put(prepared);
    } catch (RuntimeException e) {
      undo(prepared);
      throw e;
    }
    return prepared;
  }

  /** The Device Information file of each granted VF with a PCI address, and the VF it is for. */
  private Map<DeviceInfo, String> deviceInfos(Iterable<ClaimSpec.GrantedHca> hcas) {
    Map<DeviceInfo, String> out = new LinkedHashMap<>();
    for (ClaimSpec.GrantedHca h : hcas) {
      Device d = h.hca();
      if (d.hca().virtualFunction() && d.address() != null) {
        DeviceInfo.of(hcaResource, DeviceIds.virtualFunction(d), d)
            .ifPresent(
                info -> out.put(info, "SR-IOV VF " + h.draName() + " (" + d.address() + ")"));
      }
    }
    return out;
  }

  /**
   * Whether every file Prepare wrote for the claim is still there as it was written (tmpfs after a
   * reboot empties the directories; anything else may have replaced a spec with a directory, a link
   * or another program's file): its spec defines exactly its HCAs' CDI devices, and no other file
   * defines one of them.
   */
  private boolean filesThere(PreparedClaim c) {
    return (c.cdiSpec() == null || specThere(c.cdiSpec(), specDevices(c)))
        && c.deviceInfo().stream().allMatch(deviceInfo::exists);
  }

  private boolean specThere(String specFile, Set<String> devices) {
    return cdi.holds(specFile, devices) && cdi.rivals(specFile, devices).isEmpty();
  }

  /**
   * Fails when another file of the CDI directory defines one of the claim's CDI devices: the
   * container runtime would drop that name as a conflict and the container would not start.
   */
  private void refuseRivals(String specFile, Set<String> devices) {
    List<String> rivals = cdi.rivals(specFile, devices);
    if (!rivals.isEmpty()) {
      throw new CdiException(
          "CDI spec file(s) "
              + String.join(", ", rivals)
              + " in "
              + cdi.path()
              + " also define device(s) of "
              + specFile
              + " under kind "
              + ClaimSpec.KIND
              + "; the container runtime drops a name two specs of one directory define, so the"
              + " container would not get its HCA. Remove those files: this driver's specs are"
              + " named tandem.dev-hca_<claim uid>.json and it writes no others");
    }
  }

  /** The names of the CDI devices the claim's spec defines: its HCAs' CDI ids, after the kind. */
  private static Set<String> specDevices(PreparedClaim c) {
    String prefix = ClaimSpec.KIND + "=";
    Set<String> out = new HashSet<>();
    c.devices().stream()
        .flatMap(d -> d.cdiIds().stream())
        .filter(id -> id.startsWith(prefix))
        .forEach(id -> out.add(id.substring(prefix.length())));
    return out;
  }

  /** Removes what a Prepare that failed may have written; keeps the first failure's message. */
  private void undo(PreparedClaim c) {
    try {
      if (c.cdiSpec() != null) {
        cdi.remove(c.cdiSpec());
      }
      c.deviceInfo().forEach(deviceInfo::remove);
    } catch (CdiException | HostFileException e) {
      LOG.warn(
          "claim {}/{}: cannot undo a failed Prepare: {}", c.namespace(), c.name(), e.getMessage());
    }
  }

  private record Granted(AllocatedDevice result, Device device) {}

  /** This driver's devices of the claim, each checked to be a device of this node's pool. */
  private List<Granted> granted(ClaimRef ref, ClaimAllocation claim, NodePool node) {
    Map<String, Device> published = new HashMap<>();
    for (PublishedDevice p : node.devices()) {
      published.put(p.name(), p.device());
    }
    List<Granted> out = new ArrayList<>();
    for (AllocatedDevice d : claim.devices()) {
      if (!driver.equals(d.driver())) {
        continue;
      }
      if (d.request() == null || d.request().isEmpty()) {
        throw new Refused(
            "claim "
                + ref
                + " was given device "
                + UntrustedText.shown(d.device())
                + " for no request (an allocation result without its request name): not"
                + " prepared; delete the pod so that its claim is allocated again");
      }
      if (!node.nodeName().equals(d.pool())) {
        throw new Refused(
            "claim "
                + ref
                + " was given device "
                + UntrustedText.shown(d.device())
                + " of pool "
                + UntrustedText.shown(d.pool())
                + ", but this driver serves pool "
                + node.nodeName()
                + " of node "
                + node.nodeName()
                + ": the claim was allocated for another node; delete the pod so that it is"
                + " scheduled again");
      }
      Device device =
          Optional.ofNullable(published.get(d.device()))
              .orElseThrow(
                  () ->
                      new Refused(
                          "claim "
                              + ref
                              + " was given device "
                              + UntrustedText.shown(d.device())
                              + ", which this driver does not publish on node "
                              + node.nodeName()
                              + " (gone since the claim was allocated, or not a device of the"
                              + " driver's mode); delete the pod so that its claim is allocated"
                              + " again"));
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
