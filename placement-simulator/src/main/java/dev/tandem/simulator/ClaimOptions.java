package dev.tandem.simulator;

import dev.tandem.api.claims.ClaimTemplates;
import dev.tandem.topology.allocation.AllocationRequest;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.policy.InvalidPolicyException;

/**
 * The command line of {@code tandem claim}.
 *
 * @param request the pod's GPUs, HCAs and policy
 * @param name the template's name
 * @param namespace the template's namespace, or null
 */
record ClaimOptions(AllocationRequest request, String name, String namespace) {

  static final String USAGE =
      """
      usage: tandem claim --gpus N --hcas N [--alignment A] [--mode M] [--name NAME]
                          [--namespace NS]

      Prints the ResourceClaimTemplate (resource.k8s.io/v1) that asks Tandem's DRA driver for
      N GPUs and N HCAs under Tandem's alignment rule: every GPU has an HCA within the locality
      and every HCA a GPU (docs/dra.md, "Claims for Tandem's rules").

        --gpus N           GPUs (DeviceClass tandem-gpu)
        --hcas N           HCAs (DeviceClass tandem-hca)
        --alignment A      switch, root-complex, numa or none (default switch)
        --mode M           required or preferred (default required)
        --name NAME        the template's name (default tandem-<gpus>g<hcas>h-<alignment>,
                           with -preferred for a preferred aligned claim)
        --namespace NS     the template's namespace (default: none, kubectl's)
        --help             this text

      Exit 0 with the YAML on standard output; 1 when no claim within the API's limits expresses
      the shape (the message names the nearest that can be); 2 for a bad command line.
      """;

  /**
   * @throws UsageException naming the flag at fault
   */
  static ClaimOptions parse(String[] args) {
    int gpus = -1;
    int hcas = -1;
    Alignment alignment = Alignment.SWITCH;
    AlignmentMode mode = AlignmentMode.REQUIRED;
    String name = null;
    String namespace = null;
    for (int i = 0; i < args.length; i++) {
      String flag = args[i];
      if (!flag.startsWith("--") || i + 1 >= args.length) {
        throw new UsageException(
            flag.startsWith("--") ? flag + " needs a value" : "unexpected argument '" + flag + "'");
      }
      String value = args[++i];
      try {
        switch (flag) {
          case "--gpus" -> gpus = count(flag, value);
          case "--hcas" -> hcas = count(flag, value);
          case "--alignment" -> alignment = Alignment.parse(value);
          case "--mode" -> mode = AlignmentMode.parse(value);
          case "--name" -> name = value;
          case "--namespace" -> namespace = value;
          default -> throw new UsageException("unknown flag " + flag + " (--help lists them)");
        }
      } catch (InvalidPolicyException e) {
        throw new UsageException(flag + ": " + e.getMessage());
      }
    }
    if (gpus < 0 || hcas < 0) {
      throw new UsageException("--gpus and --hcas are both required");
    }
    AllocationRequest request =
        new AllocationRequest(gpus, hcas, new AlignmentPolicy(alignment, mode));
    return new ClaimOptions(
        request, name == null ? ClaimTemplates.defaultName(request) : name, namespace);
  }

  private static int count(String flag, String value) {
    try {
      int n = Integer.parseInt(value);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new UsageException(flag + " needs a whole number of 0 or more, got '" + value + "'");
  }
}
