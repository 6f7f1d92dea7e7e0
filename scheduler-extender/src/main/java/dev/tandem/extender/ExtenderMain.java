package dev.tandem.extender;

/** Entry point of the scheduler-extender jar. */
public final class ExtenderMain {

  private ExtenderMain() {}

  public static void main(String[] args) {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println("usage: java -jar scheduler-extender.jar [--help]");
      System.exit(0);
    }
    if (args.length > 0) {
      System.err.println("scheduler-extender: unknown flag " + args[0] + " (see --help)");
      System.exit(2);
    }
    System.out.println("scheduler-extender: not implemented yet");
  }
}
