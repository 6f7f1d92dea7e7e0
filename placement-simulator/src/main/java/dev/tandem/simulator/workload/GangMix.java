package dev.tandem.simulator.workload;

import dev.tandem.topology.policy.AlignmentMode;

/**
 * The gangs of a generated workload: a share of its jobs are gangs of {@code size} members of one
 * shape, the members arriving together and running for one duration (one distributed job).
 *
 * @param share share of jobs that are gangs, 0 (none) to 1
 * @param size members per gang
 * @param gpus GPUs per member
 * @param hcas HCA units per member
 * @param railAlignment the members' {@code tandem.dev/rail-alignment}
 */
public record GangMix(double share, int size, int gpus, int hcas, AlignmentMode railAlignment) {

  /** No gangs: every job is one pod. */
  public static final GangMix NONE = new GangMix(0, 1, 1, 1, AlignmentMode.PREFERRED);

  public GangMix {
    if (!(share >= 0 && share <= 1) || size < 1 || gpus < 0 || hcas < 0 || gpus + hcas == 0) {
      throw new IllegalArgumentException(
          "gangs need a share from 0 to 1, at least 1 member and a shape with GPUs or HCAs, got"
              + " share "
              + share
              + ", "
              + size
              + " members of "
              + gpus
              + "+"
              + hcas);
    }
  }

  /** GPUs a gang asks for in all. */
  int gpusPerGang() {
    return size * gpus;
  }
}
