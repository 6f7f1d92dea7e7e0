package dev.tandem.extender.config;

import dev.tandem.api.ResourceNames;
import dev.tandem.kit.config.Parser;
import dev.tandem.kit.config.Parsers;
import dev.tandem.kit.config.Rule;
import dev.tandem.kit.config.Setting;
import dev.tandem.kit.config.Settings;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.NodeClassDefault;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

/**
 * The extender's settings, each declared once with its flag, environment variable and file key;
 * {@link ExtenderConfig#load} builds the configuration from them.
 */
public final class ExtenderSettings {

  private static final Parser<String> PREFIX_PATH =
      text -> {
        if (!text.startsWith("/") || text.endsWith("/") && text.length() > 1) {
          throw new IllegalArgumentException("must start with / and not end with /");
        }
        return text;
      };

  private static final Parser<Duration> POSITIVE_DURATION =
      text -> {
        Duration d = Parsers.duration().parse(text);
        if (d.isNegative() || d.isZero()) {
          throw new IllegalArgumentException("is not a positive duration");
        }
        return d;
      };

  private static final Parser<Long> BODY_BYTES =
      text -> {
        long n = Parsers.bytes().parse(text);
        if (n < 1024) {
          throw new IllegalArgumentException("is below the smallest limit, 1024 bytes");
        }
        return n;
      };

  public static final Setting<Boolean> DEMO =
      Setting.toggle("--demo", true)
          .env("TANDEM_EXTENDER_DEMO")
          .fileKey("demo")
          .defaultValue("false")
          .defaultText("off")
          .help(
              "run on an embedded cluster built from bundled real topologies (no Kubernetes API)");
  public static final Setting<Path> DEMO_TOPOLOGIES =
      Setting.of("--demo-topologies", "DIR", Parsers.existingDirectory())
          .env("TANDEM_EXTENDER_DEMO_TOPOLOGIES")
          .fileKey("demoTopologies")
          .defaultText("bundled")
          .help(
              "with `--demo`: build the demo cluster from the NodeTopology objects in `DIR/*.json`/`*.yaml`"
                  + " (as `node-topology-agent dump` or `kubectl get nodetopology -o yaml` print them)");
  public static final Setting<Path> CONFIG =
      Setting.of("--config", "FILE", Parsers.existingFile())
          .env("TANDEM_EXTENDER_CONFIG")
          .help("YAML/JSON file with the settings that have a file key; flags and environment win");
  public static final Setting<String> HOST =
      Setting.of("--host", "ADDR", Parsers.text())
          .env("TANDEM_EXTENDER_HOST")
          .fileKey("host")
          .defaultValue("0.0.0.0")
          .help("listen address");
  public static final Setting<Integer> PORT =
      Setting.of("--port", "N", Parsers.intRange(0, 65_535))
          .env("TANDEM_EXTENDER_PORT")
          .fileKey("port")
          .defaultValue(String.valueOf(ExtenderConfig.DEFAULT_PORT))
          .help(
              "port of the scheduler verbs (`filter`, `prioritize`, `bind`, `preempt` under"
                  + " `--prefix`): kube-scheduler's urlPrefix; nothing else is served there");
  public static final Setting<Integer> INSPECTION_PORT =
      Setting.of("--inspection-port", "N", Parsers.intRange(0, 65_535))
          .env("TANDEM_EXTENDER_INSPECTION_PORT")
          .fileKey("inspectionPort")
          .defaultValue(String.valueOf(ExtenderConfig.DEFAULT_INSPECTION_PORT))
          .help(
              "port of the inspection API (`/topology/...`), `/ui`, `/healthz`, `/readyz` and"
                  + " `/metrics`: read-only, never the verbs");
  public static final Setting<String> PREFIX =
      Setting.of("--prefix", "PATH", PREFIX_PATH)
          .env("TANDEM_EXTENDER_PREFIX")
          .fileKey("prefix")
          .defaultValue("/scheduler")
          .help(
              "URL prefix of `filter`/`prioritize`/`bind`: the path of the scheduler's urlPrefix");
  public static final Setting<Path> TLS_CERT =
      Setting.of("--tls-cert", "FILE", Parsers.existingFile())
          .env("TANDEM_EXTENDER_TLS_CERT")
          .fileKey("tlsCert")
          .defaultText("none (HTTP)")
          .help(
              "PEM certificate (chain) of the verbs port: serve the verbs over HTTPS (pair with"
                  + " `enableHTTPS: true`, an https urlPrefix); changed files are served within 30 s");
  public static final Setting<Path> TLS_KEY =
      Setting.of("--tls-key", "FILE", Parsers.existingFile())
          .env("TANDEM_EXTENDER_TLS_KEY")
          .fileKey("tlsKey")
          .help("PEM private key of `--tls-cert` (PKCS#8, PKCS#1 RSA or SEC1 EC)");
  public static final Setting<Path> CLIENT_CA =
      Setting.of("--client-ca", "FILE", Parsers.existingFile())
          .env("TANDEM_EXTENDER_CLIENT_CA")
          .fileKey("clientCa")
          .help(
              "PEM CA bundle: the verbs port requires a client certificate signed by it"
                  + " (kube-scheduler's `tlsConfig.certFile`); needs `--tls-cert`");
  public static final Setting<Boolean> INSECURE_VERBS =
      Setting.toggle("--insecure-verbs", true)
          .env("TANDEM_EXTENDER_INSECURE_VERBS")
          .fileKey("insecureVerbs")
          .defaultValue("false")
          .defaultText("off: without `--client-ca` the extender refuses to start")
          .help(
              "serve the verbs without client certificates, so anyone who reaches the port can"
                  + " bind: development only (`--demo` needs no such flag, it binds nothing real)");
  public static final Setting<Path> INSPECTION_TLS_CERT =
      Setting.of("--inspection-tls-cert", "FILE", Parsers.existingFile())
          .env("TANDEM_EXTENDER_INSPECTION_TLS_CERT")
          .fileKey("inspectionTlsCert")
          .defaultText("none (HTTP)")
          .help("PEM certificate (chain): serve the inspection port over HTTPS too");
  public static final Setting<Path> INSPECTION_TLS_KEY =
      Setting.of("--inspection-tls-key", "FILE", Parsers.existingFile())
          .env("TANDEM_EXTENDER_INSPECTION_TLS_KEY")
          .fileKey("inspectionTlsKey")
          .help("PEM private key of `--inspection-tls-cert`");
  public static final Setting<Alignment> DEFAULT_ALIGNMENT =
      Setting.of("--default-alignment", "A", policy(Alignment::parse))
          .env("TANDEM_EXTENDER_DEFAULT_ALIGNMENT")
          .fileKey("defaultAlignment")
          .defaultValue("switch")
          .help("policy of pods without `tandem.dev/alignment`: switch, root-complex, numa, none");
  public static final Setting<AlignmentMode> DEFAULT_MODE =
      Setting.of("--default-mode", "M", policy(AlignmentMode::parse))
          .env("TANDEM_EXTENDER_DEFAULT_MODE")
          .fileKey("defaultMode")
          .defaultValue("required")
          .help("policy of pods without `tandem.dev/alignment-mode`: required, preferred");
  public static final Setting<List<NodeClassDefault>> NODE_CLASS_DEFAULTS =
      Setting.of("--node-class-defaults", "LIST", NodeClassDefaultsText::parse)
          .env("TANDEM_EXTENDER_NODE_CLASS_DEFAULTS")
          .fileKey("nodeClassDefaults")
          .defaultText("none")
          .help(
              "policy of pods without the annotations on classes of nodes: a YAML/JSON list of"
                  + " `{nodeSelector: {LABEL: VALUE}, alignment: A, mode: M}` (`mode` optional);"
                  + " the first entry whose labels a node carries is its default, a pod's own"
                  + " annotations win (docs/extender.md, \"Node-class defaults\")");
  public static final Setting<String> GPU_RESOURCE =
      Setting.of("--gpu-resource-name", "NAME", ResourceNames::extended)
          .env("TANDEM_EXTENDER_GPU_RESOURCE_NAME")
          .fileKey("gpuResourceName")
          .defaultValue(ResourceNames.GPU)
          .help(
              "the GPU resource as the GPU device plugin registers it: read from pod requests and"
                  + " the agents' reports (list it in the scheduler's `managedResources`)");
  public static final Setting<String> HCA_RESOURCE =
      Setting.of("--hca-resource-name", "NAME", ResourceNames::extended)
          .env("TANDEM_EXTENDER_HCA_RESOURCE_NAME")
          .fileKey("hcaResourceName")
          .defaultValue(ResourceNames.HCA)
          .help(
              "the HCA resource as Tandem's device plugin registers it (its `resourceName`): read"
                  + " from pod requests, Node capacity and the agents' reports (list it in"
                  + " `managedResources`)");
  public static final Setting<Duration> ASSUMED_TTL =
      Setting.of("--assumed-ttl", "DURATION", POSITIVE_DURATION)
          .env("TANDEM_EXTENDER_ASSUMED_TTL")
          .fileKey("assumedTtl")
          .defaultValue("5m")
          .help(
              "how long a bind's plan holds devices without the agent's report (`90s`, `10m`,"
                  + " `PT5M`)");
  public static final Setting<Long> BODY_LIMIT =
      Setting.of("--body-limit", "BYTES", BODY_BYTES)
          .env("TANDEM_EXTENDER_BODY_LIMIT")
          .fileKey("bodyLimit")
          .defaultValue("64Mi")
          .help("largest request body accepted");
  public static final Setting<Boolean> LEADER_ELECTION =
      Setting.toggle("--no-leader-election", false)
          .env("TANDEM_EXTENDER_LEADER_ELECTION")
          .fileKey("leaderElection")
          .defaultValue("true")
          .defaultText("leader election on")
          .help("every replica is Ready and binds: run one replica only (file/env: `false`)");
  public static final Setting<String> LEASE_NAMESPACE =
      Setting.of("--lease-namespace", "NS", Parsers.text())
          .env("TANDEM_EXTENDER_LEASE_NAMESPACE")
          .fileKey("leaseNamespace")
          .defaultValue("kube-system")
          .help("namespace of the leader-election Lease");
  public static final Setting<String> LEASE_NAME =
      Setting.of("--lease-name", "NAME", Parsers.text())
          .env("TANDEM_EXTENDER_LEASE_NAME")
          .fileKey("leaseName")
          .defaultValue("tandem-scheduler-extender")
          .help("Lease name");
  public static final Setting<String> IDENTITY =
      Setting.of("--identity", "ID", Parsers.text())
          .env("POD_NAME")
          .fileKey("identity")
          .defaultText("`$HOSTNAME`, else `tandem-extender-<pid>`")
          .help("this replica's identity in the Lease");
  public static final Setting<Long> CACHE_SIZE =
      Setting.of("--cache-size", "N", Parsers.longRange(1, Long.MAX_VALUE))
          .env("TANDEM_EXTENDER_CACHE_SIZE")
          .fileKey("cacheSize")
          .defaultValue("200000")
          .help("entries of the per-node answer cache");

  public static final Setting<Integer> REHEARSAL_CYCLES =
      Setting.of("--standby-rehearsal-cycles", "N", Parsers.intRange(0, 1_000_000))
          .env("TANDEM_EXTENDER_STANDBY_REHEARSAL_CYCLES")
          .fileKey("standbyRehearsalCycles")
          .defaultValue("2000")
          .help(
              "filter, prioritize and bind cycles a standby replica rehearses on its own state"
                  + " while another holds the lease, so its verbs are compiled before it takes"
                  + " over; at most half a core, nothing written, nothing held (every 8th cycle"
                  + " reads its own pod); 0 turns it off (docs/operations.md, \"The warm"
                  + " standby\")");

  /** The extender's settings, its file named by {@code --config}. */
  public static final Settings SETTINGS =
      Settings.of(
              """
              usage: java -jar scheduler-extender.jar [--demo [--demo-topologies DIR]] [options]

              Every flag can also be set through the environment variable in brackets, and most
              through the --config file's key; flags win over the environment, which wins over the file.
              """,
              List.of(
                  DEMO,
                  DEMO_TOPOLOGIES,
                  CONFIG,
                  HOST,
                  PORT,
                  PREFIX,
                  TLS_CERT,
                  TLS_KEY,
                  CLIENT_CA,
                  INSECURE_VERBS,
                  INSPECTION_PORT,
                  INSPECTION_TLS_CERT,
                  INSPECTION_TLS_KEY,
                  DEFAULT_ALIGNMENT,
                  DEFAULT_MODE,
                  NODE_CLASS_DEFAULTS,
                  GPU_RESOURCE,
                  HCA_RESOURCE,
                  ASSUMED_TTL,
                  BODY_LIMIT,
                  LEADER_ELECTION,
                  LEASE_NAMESPACE,
                  LEASE_NAME,
                  IDENTITY,
                  CACHE_SIZE,
                  REHEARSAL_CYCLES))
          .configFile(CONFIG)
          .rules(
              Rule.requires(DEMO_TOPOLOGIES, DEMO),
              Rule.together(TLS_CERT, TLS_KEY),
              Rule.requires(CLIENT_CA, TLS_CERT),
              Rule.together(INSPECTION_TLS_CERT, INSPECTION_TLS_KEY),
              Rule.differ(GPU_RESOURCE, HCA_RESOURCE));

  private ExtenderSettings() {}

  /** A pod-annotation value parser whose error lists the allowed values. */
  private static <T> Parser<T> policy(Function<String, T> parse) {
    return text -> {
      try {
        return parse.apply(text);
      } catch (IllegalArgumentException e) {
        String m = e.getMessage();
        throw new IllegalArgumentException(
            "is not one of " + m.substring(m.indexOf("allowed: ") + "allowed: ".length()));
      }
    };
  }
}
