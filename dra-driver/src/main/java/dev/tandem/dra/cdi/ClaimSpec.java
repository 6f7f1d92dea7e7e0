package dev.tandem.dra.cdi;

import dev.tandem.api.container.RdmaDeviceNodes;
import dev.tandem.api.container.RdmaEnvironment;
import dev.tandem.topology.model.Device;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CDI spec of one claim's HCAs, in a file of its own ({@code tandem.dev-hca_<claim uid>.json},
 * the CDI library's name for a transient spec of vendor {@code tandem.dev}, class {@code hca}):
 *
 * <ul>
 *   <li>one device per granted HCA, {@code tandem.dev/hca=<claim uid>-<DRA device name>} (unique
 *       across claims, so two claims' specs never define one name twice), with the HCA's uverbs
 *       character device;
 *   <li>the spec's own edits, applied once to a container given any of them: {@code
 *       /dev/infiniband/rdma_cm} and the environment the device plugin gives ({@link
 *       RdmaEnvironment}: {@code NCCL_IB_HCA}, {@code UCX_NET_DEVICES}, {@code TANDEM_RDMA_*},
 *       {@code PCIDEVICE_<RESOURCE>}) naming all the claim's HCAs.
 * </ul>
 *
 * @param fileName the spec's file name in the CDI directory
 * @param spec the spec
 * @param cdiIds the fully qualified CDI device name of each HCA, by DRA device name
 */
public record ClaimSpec(String fileName, CdiSpec spec, Map<String, String> cdiIds) {

  public static final String VENDOR = "tandem.dev";
  public static final String CLASS = "hca";
  public static final String KIND = VENDOR + "/" + CLASS;

  /**
   * One granted HCA.
   *
   * @param draName its DRA device name
   * @param hca the HCA of the node's tree
   */
  public record GrantedHca(String draName, Device hca) {}

  /** The spec file's name for a claim. */
  public static String fileName(String claimUid) {
    return VENDOR + "-" + CLASS + "_" + claimUid + ".json";
  }

  /**
   * @param resourceName the resource whose {@code PCIDEVICE_<RESOURCE>} variable the container gets
   *     (the device plugin's HCA resource, {@code rdma/hca}, so tools find the same name)
   * @throws CdiException naming the HCA and the node when an HCA has no uverbs device
   */
  public static ClaimSpec of(
      String nodeName, String claimUid, String resourceName, List<GrantedHca> hcas) {
    List<CdiSpec.Named> devices = new ArrayList<>();
    Map<String, String> ids = new LinkedHashMap<>();
    List<RdmaEnvironment.Granted> granted = new ArrayList<>();
    for (GrantedHca h : hcas) {
      String uverbs = h.hca().hca().uverbs();
      if (uverbs == null) {
        boolean vf = h.hca().hca().virtualFunction();
        throw new CdiException(
            "no uverbs character device known for "
                + (vf ? "SR-IOV VF " : "HCA ")
                + h.hca().id()
                + " ("
                + h.draName()
                + ") on node "
                + nodeName
                + " (sysfs has no infiniband_verbs entry: is the ib_uverbs module loaded"
                + (vf
                    ? ", and the VF bound to its RDMA driver (mlx5_core, not vfio-pci)?)"
                    : "?)"));
      }
      String name = claimUid + "-" + h.draName();
      String path = RdmaDeviceNodes.uverbs(uverbs);
      devices.add(
          new CdiSpec.Named(
              name,
              new CdiSpec.Edits(
                  List.of(),
                  List.of(new CdiSpec.DeviceNode(path, path, RdmaDeviceNodes.PERMISSIONS)))));
      ids.put(h.draName(), KIND + "=" + name);
      granted.add(new RdmaEnvironment.Granted(h.draName(), h.hca()));
    }
    List<String> env = new ArrayList<>();
    RdmaEnvironment.of(resourceName, granted).forEach((k, v) -> env.add(k + "=" + v));
    CdiSpec.Edits common =
        new CdiSpec.Edits(
            env,
            List.of(
                new CdiSpec.DeviceNode(
                    RdmaDeviceNodes.RDMA_CM,
                    RdmaDeviceNodes.RDMA_CM,
                    RdmaDeviceNodes.PERMISSIONS)));
    return new ClaimSpec(
        fileName(claimUid), new CdiSpec(CdiSpec.VERSION, KIND, devices, common), ids);
  }
}
