package dev.tandem.topology.allocation;

/** Groups chosen at one locality level and how many GPUs and HCA units each gives. */
final class GroupSet {
  final int[] groups;
  final int[] gpus;
  final int[] hcas;

  private GroupSet(int[] groups, int[] gpus, int[] hcas) {
    this.groups = groups;
    this.gpus = gpus;
    this.hcas = hcas;
  }

  /**
   * Splits the request over the groups: with both kinds, each group first gets one GPU and one HCA
   * (so each has a partner); the rest fills the groups with the least free room first, so what
   * stays free is concentrated.
   */
  static GroupSet distribute(int[] groups, int[] gpuFree, int[] hcaFree, int gpus, int hcas) {
    int k = groups.length;
    int[] order = leastRoomFirst(groups, gpuFree, hcaFree);
    boolean paired = gpus > 0 && hcas > 0;
    int[] g = new int[k];
    int[] h = new int[k];
    int restG = gpus;
    int restH = hcas;
    if (paired) {
      for (int i = 0; i < k; i++) {
        g[i] = 1;
        h[i] = 1;
      }
      restG -= k;
      restH -= k;
    }
    for (int i : order) {
      int addG = Math.min(restG, gpuFree[groups[i]] - g[i]);
      g[i] += addG;
      restG -= addG;
      int addH = Math.min(restH, hcaFree[groups[i]] - h[i]);
      h[i] += addH;
      restH -= addH;
    }
    return new GroupSet(groups, g, h);
  }

  /**
   * Positions of the groups ordered by free room, least first; ties keep group order (insertion
   * sort: k is small).
   */
  private static int[] leastRoomFirst(int[] groups, int[] gpuFree, int[] hcaFree) {
    int[] order = new int[groups.length];
    for (int i = 0; i < order.length; i++) {
      int room = gpuFree[groups[i]] + hcaFree[groups[i]];
      int j = i;
      while (j > 0 && gpuFree[groups[order[j - 1]]] + hcaFree[groups[order[j - 1]]] > room) {
        order[j] = order[j - 1];
        j--;
      }
      order[j] = i;
    }
    return order;
  }
}
