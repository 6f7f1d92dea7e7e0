package dev.tandem.deviceplugin.resource;

import dev.tandem.deviceplugin.allocate.AllocateResponder;
import dev.tandem.deviceplugin.allocate.RdmaAnswer;
import dev.tandem.deviceplugin.inventory.HealthProbe;
import dev.tandem.deviceplugin.inventory.Inventory;
import dev.tandem.deviceplugin.preferred.PodHcas;
import dev.tandem.discovery.UverbsLocator;
import dev.tandem.kubelet.deviceplugin.AdvertisedDevice;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code rdma/hca} devices of the {@link Inventory} (HCAs, VFs or shared slots). Health is the
 * port state, read per HCA (a device whose port sysfs cannot tell keeps the state discovery saw);
 * each health check also re-reads the HCAs' uverbs character devices, which Allocate hands out.
 * With a rescan, each check first rediscovers the node, so devices that appear (VFs re-created with
 * {@code sriov_numvfs}, an HCA whose RDMA driver was loaded after start) are offered without a
 * restart, in every mode.
 */
public final class HcaDevices implements ResourceDevices {

  private static final Logger LOG = LoggerFactory.getLogger(HcaDevices.class);

  private final Inventory inventory;
  private final HealthProbe probe;
  private final UverbsLocator locator;
  private final PodHcas podHcas;
  private final Supplier<Machine> rescan;
  private volatile Map<String, String> uverbsByIbdev = Map.of();

  public HcaDevices(Inventory inventory, HealthProbe probe, UverbsLocator locator) {
    this(inventory, probe, locator, null, null);
  }

  /**
   * @param podHcas where Allocate finds the pod HCAs devices were steered to, to name them in every
   *     container of the pod; null to name each container's own HCAs (given only in {@code shared}
   *     mode: in the other modes a container can use only the devices the kubelet granted it)
   * @param rescan a new discovery of the node, run before each health reading; null for none
   */
  public HcaDevices(
      Inventory inventory,
      HealthProbe probe,
      UverbsLocator locator,
      PodHcas podHcas,
      Supplier<Machine> rescan) {
    this.inventory = inventory;
    this.probe = probe;
    this.locator = locator;
    this.podHcas = podHcas;
    this.rescan = rescan;
  }

  @Override
  public String resourceName() {
    return inventory.config().resourceName();
  }

  @Override
  public String noun() {
    return "devices";
  }

  @Override
  public List<OfferedDevice> offered() {
    return inventory.devices().stream()
        .map(d -> new OfferedDevice(d.id(), d.numaNode(), d.ibDevice()))
        .toList();
  }

  /** Every HCA the selectors kept, offered or not (a PF in SR-IOV mode offers only its VFs). */
  @Override
  public Map<String, Boolean> discoveredHealth() {
    Map<String, Boolean> out = new HashMap<>();
    inventory.hcas().forEach(h -> out.put(h.hca().ibDevice(), discovered(h)));
    return out;
  }

  @Override
  public Map<String, Boolean> readHealth() {
    if (rescan != null) {
      rescan();
    }
    Map<String, Boolean> health = new HashMap<>();
    Map<String, String> verbs = new HashMap<>();
    for (Device h : inventory.hcas()) {
      String ib = h.hca().ibDevice();
      health.put(ib, probe.healthy(ib).orElse(discovered(h)));
      String u = h.hca().uverbs() != null ? h.hca().uverbs() : locator.uverbs(ib).orElse(null);
      if (u != null) {
        verbs.put(ib, u);
      }
    }
    uverbsByIbdev = Map.copyOf(verbs);
    return health;
  }

  /** A failed rediscovery keeps the devices offered now; the next check tries again. */
  private void rescan() {
    try {
      inventory.rescan(rescan.get());
    } catch (RuntimeException e) {
      LOG.warn(
          "node {}: rediscovery failed ({}); the {} devices offered stay, the next health check"
              + " tries again",
          inventory.machine().nodeName(),
          e.getMessage(),
          inventory.config().resourceName());
    }
  }

  @Override
  public String healthChange(String ibDevice, boolean healthy) {
    return "HCA "
        + ibDevice
        + " on node "
        + inventory.machine().nodeName()
        + " is now "
        + (healthy ? AdvertisedDevice.HEALTHY : AdvertisedDevice.UNHEALTHY + " (port not ACTIVE)");
  }

  @Override
  public AllocateResponder allocateResponder() {
    return RdmaAnswer.responder(
        inventory, this::uverbs, ids -> podHcas == null ? Optional.empty() : podHcas.of(ids));
  }

  /** The uverbs character device of an HCA, as the last health check found it. */
  public Optional<String> uverbs(String ibDevice) {
    return Optional.ofNullable(uverbsByIbdev.get(ibDevice));
  }

  private static boolean discovered(Device hca) {
    return hca.healthy() && hca.hca().portUsable();
  }
}
