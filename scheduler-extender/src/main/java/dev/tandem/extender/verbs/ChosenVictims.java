package dev.tandem.extender.verbs;

import java.util.List;

/**
 * The answer for one node kept as a candidate: its {@code MetaVictims}.
 *
 * @param uids the victims' UIDs, in the order kube-scheduler proposed them (most important first,
 *     which its choice of node relies on)
 * @param pdbViolations {@code NumPDBViolations}
 */
public record ChosenVictims(List<String> uids, long pdbViolations) {

  public ChosenVictims {
    uids = List.copyOf(uids);
  }
}
