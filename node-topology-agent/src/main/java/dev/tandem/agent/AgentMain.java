package dev.tandem.agent;

import dev.tandem.agent.cli.DumpCommand;
import dev.tandem.agent.run.RunCommand;
import java.util.Arrays;
import java.util.Map;

/**
 * Entry point of node-topology-agent.jar: {@code dump} prints the topology, {@code run} publishes
 * it.
 */
public final class AgentMain {

  static final String USAGE =
      """
      usage: java -jar node-topology-agent.jar <command> [flags]

      commands:
        dump   discover this node (or a fixture) and print the NodeTopology object or the matrix
        run    DaemonSet mode: publish NodeTopology, audit allocations, serve /healthz and /metrics

      Run 'java -jar node-topology-agent.jar <command> --help' for the flags of a command.
      """;

  private AgentMain() {}

  public static void main(String[] args) {
    System.exit(run(args, System.getenv()));
  }

  /**
   * Runs a command with {@code env} as its environment (only {@link #main} passes the real one).
   */
  static int run(String[] args, Map<String, String> env) {
    if (args.length == 0 || args[0].equals("--help") || args[0].equals("-h")) {
      System.out.print(USAGE);
      return args.length == 0 ? 2 : 0;
    }
    String[] rest = Arrays.copyOfRange(args, 1, args.length);
    return switch (args[0]) {
      case "dump" -> DumpCommand.run(rest, env);
      case "run" -> RunCommand.run(rest, env);
      default -> {
        System.err.println(
            "node-topology-agent: unknown command or flag '" + args[0] + "' (see --help)");
        yield 2;
      }
    };
  }
}
