package dev.tandem.agent.cli;

/** Placeholder until implemented. */
public final class DumpCommand {

  private DumpCommand() {}

  public static int run(String[] args) {
    System.err.println("node-topology-agent: this command is not implemented yet");
    return 1;
  }
}
