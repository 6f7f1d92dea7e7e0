package dev.tandem.topology.rail;

import dev.tandem.topology.allocation.Availability;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * A gang's rail set on one node (docs/rails.md, "Gangs"): the rails of the HCAs a member was
 * planned on, and the node's availability narrowed to those rails so that the one allocator plans a
 * later member on them and on nothing else. Pure.
 */
public final class RailSets {

  private RailSets() {}

  /**
   * The rails of these HCAs of the machine (a member's planned HCA ids), ascending. An id that is
   * not an HCA of the machine, or an HCA on no rail, adds none.
   */
  public static SortedSet<Integer> of(Machine machine, Collection<String> hcaIds) {
    SortedSet<Integer> rails = new TreeSet<>();
    for (String id : hcaIds) {
      machine
          .device(id)
          .filter(d -> d.hca() != null && d.hca().rail() != null)
          .ifPresent(d -> rails.add(d.hca().rail()));
    }
    return Collections.unmodifiableSortedSet(rails);
  }

  /**
   * {@code free} with every unit of each HCA not on one of {@code rails} taken (an HCA on no rail
   * included); GPUs as they were. The allocator given it chooses HCAs on those rails only, and
   * refuses when they are too few.
   */
  public static Availability onRails(Availability free, Set<Integer> rails) {
    List<String> off = new ArrayList<>();
    for (Device d : free.index().devices()) {
      if (d.hca() != null && (d.hca().rail() == null || !rails.contains(d.hca().rail()))) {
        for (int unit = free.free(d.id()); unit > 0; unit--) {
          off.add(d.id());
        }
      }
    }
    return free.without(off);
  }
}
