package dev.tandem.deviceplugin.preferred.hint;

import java.util.List;

/**
 * What guides a preferred allocation, best first: the GPUs the container already holds, else the
 * HCAs of its plan, else nothing (the allocator's choice).
 *
 * @param source which of the three
 * @param gpus GPU ids held by the container ({@link Source#GPUS})
 * @param hcas HCA ids of the plan ({@link Source#PLAN})
 * @param why one sentence for the log: which pod, or why there is no hint
 */
public record Hint(Source source, List<String> gpus, List<String> hcas, String why) {

  /** Where the hint came from. */
  public enum Source {
    GPUS,
    PLAN,
    NONE
  }

  public Hint {
    gpus = List.copyOf(gpus);
    hcas = List.copyOf(hcas);
  }

  public static Hint none(String why) {
    return new Hint(Source.NONE, List.of(), List.of(), why);
  }

  public static Hint gpus(List<String> gpus, List<String> planHcas, String why) {
    return new Hint(Source.GPUS, gpus, planHcas, why);
  }

  public static Hint plan(List<String> hcas, String why) {
    return new Hint(Source.PLAN, List.of(), hcas, why);
  }
}
