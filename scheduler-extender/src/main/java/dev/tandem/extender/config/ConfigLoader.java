package dev.tandem.extender.config;

import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Reads the configuration: a YAML or JSON file ({@code --config FILE}, keys in camelCase), then
 * flags, which win. Every value is checked here, so a bad setting stops the start with a message
 * naming it.
 */
public final class ConfigLoader {

  /** Flag to file key; a null key marks a switch without value. */
  private static final Map<String, String> FLAGS = new LinkedHashMap<>();

  static {
    FLAGS.put("--host", "host");
    FLAGS.put("--port", "port");
    FLAGS.put("--prefix", "prefix");
    FLAGS.put("--tls-cert", "tlsCert");
    FLAGS.put("--tls-key", "tlsKey");
    FLAGS.put("--client-ca", "clientCa");
    FLAGS.put("--default-alignment", "defaultAlignment");
    FLAGS.put("--default-mode", "defaultMode");
    FLAGS.put("--assumed-ttl", "assumedTtl");
    FLAGS.put("--body-limit", "bodyLimit");
    FLAGS.put("--demo-topologies", "demoTopologies");
    FLAGS.put("--lease-namespace", "leaseNamespace");
    FLAGS.put("--lease-name", "leaseName");
    FLAGS.put("--identity", "identity");
    FLAGS.put("--cache-size", "cacheSize");
  }

  public static final String USAGE =
      """
      usage: java -jar scheduler-extender.jar [--demo [--demo-topologies DIR]] [options]

        --demo                    run on an embedded cluster built from bundled real topologies
                                  (no Kubernetes API needed)
        --demo-topologies DIR     build the demo cluster from DIR/*.xml (hwloc XML, node named after
                                  the file) and DIR/*.json|*.yaml (NodeTopology objects)
        --config FILE             YAML/JSON file with the settings below (camelCase keys); flags win
        --host ADDR               listen address (default 0.0.0.0)
        --port N                  listen port (default 8888)
        --prefix PATH             URL prefix of filter/prioritize/bind (default /scheduler)
        --tls-cert FILE           PEM certificate: serve HTTPS (kube-scheduler enableHTTPS)
        --tls-key FILE            PEM private key for --tls-cert
        --client-ca FILE          PEM CA: require client certificates signed by it
        --default-alignment A     switch | root-complex | numa | none (default switch)
        --default-mode M          required | preferred (default required)
        --assumed-ttl DURATION    how long a bind's plan holds devices without the agent's report
                                  (default 5m; e.g. 90s, 10m, PT5M)
        --body-limit BYTES        largest request body (default 64Mi)
        --no-leader-election      every replica is Ready and binds (one replica only)
        --lease-namespace NS      namespace of the leader-election Lease (default kube-system)
        --lease-name NAME         Lease name (default tandem-scheduler-extender)
        --identity ID             this replica's Lease identity (default $POD_NAME or $HOSTNAME)
        --cache-size N            per-node answer cache entries (default 200000)
        --help                    this text
      """;

  private ConfigLoader() {}

  /** Parses the command line; returns null when {@code --help} was asked. */
  public static ExtenderConfig load(List<String> args) {
    Map<String, String> values = new LinkedHashMap<>();
    Map<String, String> flags = new LinkedHashMap<>();
    String file = null;
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String inline = null;
      int eq = arg.indexOf('=');
      if (arg.startsWith("--") && eq > 0) {
        inline = arg.substring(eq + 1);
        arg = arg.substring(0, eq);
      }
      switch (arg) {
        case "--help", "-h" -> {
          return null;
        }
        case "--demo" -> flags.put("demo", "true");
        case "--no-leader-election" -> flags.put("leaderElection", "false");
        case "--config" -> file = inline != null ? inline : value(args, ++i, arg);
        default -> {
          String key = FLAGS.get(arg);
          if (key == null) {
            throw new UsageException("unknown flag " + arg + " (see --help)");
          }
          flags.put(key, inline != null ? inline : value(args, ++i, arg));
        }
      }
    }
    if (file != null) {
      values.putAll(readFile(Path.of(file)));
    }
    values.putAll(flags);
    return build(values);
  }

  /** Builds a configuration from file-style keys; unknown keys are an error. */
  public static ExtenderConfig build(Map<String, String> v) {
    for (String key : v.keySet()) {
      if (!FLAGS.containsValue(key) && !key.equals("demo") && !key.equals("leaderElection")) {
        throw new ConfigException(
            "unknown setting '"
                + key
                + "'; known: "
                + String.join(", ", FLAGS.values())
                + ", demo, leaderElection");
      }
    }
    ExtenderConfig d = ExtenderConfig.defaults();
    AlignmentPolicy policy;
    try {
      policy =
          new AlignmentPolicy(
              v.containsKey("defaultAlignment")
                  ? Alignment.parse(v.get("defaultAlignment").trim())
                  : d.defaultPolicy().alignment(),
              v.containsKey("defaultMode")
                  ? AlignmentMode.parse(v.get("defaultMode").trim())
                  : d.defaultPolicy().mode());
    } catch (IllegalArgumentException e) {
      throw new ConfigException("default policy: " + e.getMessage());
    }
    return new ExtenderConfig(
        v.getOrDefault("host", d.host()),
        (int) number(v, "port", d.port()),
        v.getOrDefault("prefix", d.prefix()),
        path(v, "tlsCert"),
        path(v, "tlsKey"),
        path(v, "clientCa"),
        policy,
        v.containsKey("assumedTtl") ? duration(v.get("assumedTtl")) : d.assumedTtl(),
        v.containsKey("bodyLimit") ? bytes(v.get("bodyLimit")) : d.bodyLimit(),
        Boolean.parseBoolean(v.getOrDefault("demo", "false")),
        path(v, "demoTopologies"),
        Boolean.parseBoolean(v.getOrDefault("leaderElection", "true")),
        v.getOrDefault("leaseNamespace", d.leaseNamespace()),
        v.getOrDefault("leaseName", d.leaseName()),
        v.getOrDefault("identity", d.identity()),
        number(v, "cacheSize", d.cacheSize()));
  }

  static Duration duration(String text) {
    String t = text.trim().toLowerCase(Locale.ROOT);
    try {
      if (t.startsWith("pt")) {
        return Duration.parse(t.toUpperCase(Locale.ROOT));
      }
      long n = Long.parseLong(t.replaceAll("(ms|s|m|h)$", ""));
      return t.endsWith("ms")
          ? Duration.ofMillis(n)
          : t.endsWith("s")
              ? Duration.ofSeconds(n)
              : t.endsWith("m")
                  ? Duration.ofMinutes(n)
                  : t.endsWith("h") ? Duration.ofHours(n) : Duration.ofSeconds(n);
    } catch (NumberFormatException | DateTimeParseException e) {
      throw new ConfigException("assumedTtl '" + text + "' is not a duration (e.g. 90s, 5m, PT5M)");
    }
  }

  static long bytes(String text) {
    String t = text.trim();
    long factor = 1;
    for (String[] unit :
        new String[][] {{"Ki", "1024"}, {"Mi", "1048576"}, {"k", "1000"}, {"M", "1000000"}}) {
      if (t.endsWith(unit[0])) {
        factor = Long.parseLong(unit[1]);
        t = t.substring(0, t.length() - unit[0].length());
        break;
      }
    }
    try {
      return Long.parseLong(t.trim()) * factor;
    } catch (NumberFormatException e) {
      throw new ConfigException(
          "bodyLimit '" + text + "' is not a byte count (e.g. 1048576, 64Mi)");
    }
  }

  private static long number(Map<String, String> v, String key, long fallback) {
    String s = v.get(key);
    try {
      return s == null ? fallback : Long.parseLong(s.trim());
    } catch (NumberFormatException e) {
      throw new ConfigException(key + " '" + s + "' is not a number");
    }
  }

  private static Path path(Map<String, String> v, String key) {
    String s = v.get(key);
    return s == null || s.isBlank() ? null : Path.of(s);
  }

  private static String value(List<String> args, int i, String flag) {
    if (i >= args.size() || args.get(i).startsWith("--")) {
      throw new UsageException(flag + " needs a value (see --help)");
    }
    return args.get(i);
  }

  private static Map<String, String> readFile(Path file) {
    try {
      Map<?, ?> raw = new YAMLMapper().readValue(file.toFile(), Map.class);
      Map<String, String> out = new LinkedHashMap<>();
      if (raw != null) {
        raw.forEach(
            (k, val) -> out.put(String.valueOf(k), val == null ? null : String.valueOf(val)));
      }
      return out;
    } catch (IOException e) {
      throw new ConfigException("cannot read config file " + file + ": " + e.getMessage());
    }
  }
}
