package dev.tandem.deviceplugin;

/** Entry point of the device-plugin jar. */
public final class DevicePluginMain {

  private DevicePluginMain() {}

  public static void main(String[] args) {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println("usage: java -jar device-plugin.jar [--help]");
      System.exit(0);
    }
    if (args.length > 0) {
      System.err.println("device-plugin: unknown flag " + args[0] + " (see --help)");
      System.exit(2);
    }
    System.out.println("device-plugin: not implemented yet");
  }
}
