package dev.tandem.agent.run;

/** Placeholder until implemented. */
public final class RunCommand {

  private RunCommand() {}

  public static int run(String[] args) {
    System.err.println("node-topology-agent: this command is not implemented yet");
    return 1;
  }
}
