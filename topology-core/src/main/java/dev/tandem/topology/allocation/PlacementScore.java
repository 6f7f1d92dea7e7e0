package dev.tandem.topology.allocation;

import dev.tandem.topology.model.Locality;
import dev.tandem.topology.policy.Alignment;

/**
 * How much kube-scheduler should want a node for a pod, 0..10 (the extender's prioritize score),
 * from the allocator's choice on that node.
 *
 * <ul>
 *   <li><b>The choice meets the pod's alignment</b> (its worst locality is within the alignment's
 *       limit): 5 to 10, by how tightly the pod fills the node. 10 when it takes the node's last
 *       free devices, and one point less each time the devices it leaves free double: 1 left 9, 2–3
 *       left 8, 4–7 left 7, 8–15 left 6, 16 or more 5. Partly used nodes fill up first, and among
 *       untouched nodes the smallest that can align the pod goes first, so the nodes that alone can
 *       hold the largest pods stay whole for them: the allocator's best fit inside a node (rule 4)
 *       carried to the choice between nodes.
 *   <li><b>It does not</b> (possible only for a {@code preferred} pod): 0 to 4 by its locality,
 *       {@code PIX} 4, {@code PXB} 3, {@code PHB} 2, {@code NODE} 1, {@code SYS} 0, below every
 *       node that meets the alignment.
 * </ul>
 *
 * For a request of one kind only, the locality is the spread of the chosen devices.
 */
public final class PlacementScore {

  /** The lowest score of a choice that meets the pod's alignment. */
  public static final int ALIGNED = 5;

  private PlacementScore() {}

  /**
   * @param worst the choice's worst locality ({@link Allocation#worst()})
   * @param alignment the pod's alignment
   * @param devicesLeftFree GPUs and HCAs of the node with a free unit once the choice is taken
   */
  public static int of(Locality worst, Alignment alignment, int devicesLeftFree) {
    if (!worst.isWithin(alignment.worstAllowed())) {
      return switch (worst) {
        case X, PIX -> 4;
        case PXB -> 3;
        case PHB -> 2;
        case NODE -> 1;
        case SYS -> 0;
      };
    }
    int doublings = 32 - Integer.numberOfLeadingZeros(Math.max(0, devicesLeftFree));
    return ALIGNED + Math.max(0, 5 - doublings);
  }
}
