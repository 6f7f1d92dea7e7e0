package dev.tandem.agent;

/** Entry point of the node-topology-agent jar. */
public final class AgentMain {

  private AgentMain() {}

  public static void main(String[] args) {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println("usage: java -jar node-topology-agent.jar [--help]");
      System.exit(0);
    }
    if (args.length > 0) {
      System.err.println("node-topology-agent: unknown flag " + args[0] + " (see --help)");
      System.exit(2);
    }
    System.out.println("node-topology-agent: not implemented yet");
  }
}
