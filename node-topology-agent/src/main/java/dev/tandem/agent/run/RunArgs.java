package dev.tandem.agent.run;

import java.util.HashMap;
import java.util.Map;

/**
 * Folds {@code run}'s flags into a settings map keyed by environment-variable name: flags win over
 * the environment, which wins over defaults.
 */
public final class RunArgs {

  private RunArgs() {}

  /** True when the arguments ask for help. */
  public static boolean wantsHelp(String[] args) {
    for (String a : args) {
      if (a.equals("--help") || a.equals("-h")) {
        return true;
      }
    }
    return false;
  }

  /**
   * The settings: the environment's known variables, overridden by flags.
   *
   * @throws UnknownFlagException for a flag {@code run} does not have
   * @throws InvalidConfigurationException for a flag without its value
   */
  public static Map<String, String> settings(String[] args, Map<String, String> env) {
    Map<String, String> out = new HashMap<>();
    for (Setting s : Setting.values()) {
      if (env.get(s.env()) != null) {
        out.put(s.env(), env.get(s.env()));
      }
    }
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      int eq = arg.indexOf('=');
      String name = arg.startsWith("--") && eq > 0 ? arg.substring(0, eq) : arg;
      Setting s = Setting.byFlag(name);
      if (s == null) {
        throw new UnknownFlagException(arg);
      }
      String value;
      if (eq > 0 && arg.startsWith("--")) {
        value = arg.substring(eq + 1);
      } else if (i + 1 < args.length) {
        value = args[++i];
      } else {
        throw new InvalidConfigurationException("flag " + s.names() + " needs a value");
      }
      out.put(s.env(), value);
    }
    return out;
  }

  /** A flag {@code run} does not know. */
  public static final class UnknownFlagException extends RuntimeException {
    public UnknownFlagException(String flag) {
      super("unknown flag '" + flag + "' (see run --help)");
    }
  }

  /** The {@code run --help} text. */
  public static String usage() {
    StringBuilder b =
        new StringBuilder(
            """
        usage: java -jar node-topology-agent.jar run [flags]

        DaemonSet mode: publish this node's NodeTopology, audit GPU/HCA allocations through the
        kubelet's PodResources API, serve /healthz and /metrics. Every flag can also be set through
        the environment variable in brackets; flags win.

        """);
    for (Setting s : Setting.values()) {
      b.append(
          String.format(
              "  %-24s [%s] %s%s%n",
              s.flag(),
              s.env(),
              s.help(),
              s.defaultValue() == null ? "" : " (default " + s.defaultValue() + ")"));
    }
    return b.toString();
  }
}
