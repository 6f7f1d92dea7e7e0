package dev.tandem.simulator;

import dev.tandem.api.claims.ClaimGenerator;
import dev.tandem.api.claims.ClaimTemplates;
import dev.tandem.api.claims.DeviceClaimSpec;
import dev.tandem.api.claims.InexpressibleClaimException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.PrintStream;

/**
 * {@code tandem claim} ({@code java -jar placement-simulator.jar claim …}): the generator's
 * ResourceClaimTemplate as YAML. Exit 0 when printed, 1 when the shape cannot be expressed, 2 for a
 * bad command line.
 */
final class ClaimMain {

  private ClaimMain() {}

  /** Runs the command (its arguments, without {@code claim}); returns the exit code. */
  static int run(String[] args, PrintStream out, PrintStream err) {
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        out.print(ClaimOptions.USAGE);
        return 0;
      }
    }
    ClaimOptions options;
    try {
      options = ClaimOptions.parse(args);
    } catch (UsageException e) {
      err.println("tandem claim: " + e.getMessage());
      return 2;
    }
    DeviceClaimSpec claim;
    try {
      claim = ClaimGenerator.claim(options.request());
    } catch (InexpressibleClaimException e) {
      err.println("tandem claim: " + e.getMessage());
      return 1;
    }
    out.print(
        new KubernetesSerialization()
            .asYaml(ClaimTemplates.template(options.name(), options.namespace(), claim)));
    return 0;
  }
}
