package dev.tandem.topology.allocation;

/**
 * The k-subsets of {0..n-1} in lexicographic order, as arrays of ascending positions: the
 * allocator's choice of groups and the extender's choice of preemption victims walk them.
 */
public final class Combinations {

  private Combinations() {}

  /** {0, 1, …, k-1}: the first subset of size k. */
  public static int[] first(int k) {
    int[] combo = new int[k];
    for (int i = 0; i < k; i++) {
      combo[i] = i;
    }
    return combo;
  }

  /** Advances {@code combo} to the next subset of {0..n-1}; false when it was the last. */
  public static boolean next(int[] combo, int n) {
    int k = combo.length;
    int i = k - 1;
    while (i >= 0 && combo[i] == n - k + i) {
      i--;
    }
    if (i < 0) {
      return false;
    }
    combo[i]++;
    for (int j = i + 1; j < k; j++) {
      combo[j] = combo[j - 1] + 1;
    }
    return true;
  }
}
