package dev.tandem.extender.verbs;

import java.util.List;

/**
 * kube-scheduler's proposal for one node: {@code Victims} or {@code MetaVictims}.
 *
 * @param pods the victims, most important first (kube-scheduler sorts them so)
 * @param pdbViolations {@code NumPDBViolations}: how many of them a PodDisruptionBudget protects
 */
public record ProposedVictims(List<ProposedVictim> pods, long pdbViolations) {

  public ProposedVictims {
    pods = List.copyOf(pods);
  }
}
