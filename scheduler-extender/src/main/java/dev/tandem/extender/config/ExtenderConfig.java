package dev.tandem.extender.config;

import dev.tandem.api.ResourceNames;
import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.policy.NodeClassDefault;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The extender's settings, validated: see {@link ExtenderSettings} for the flags, variables and
 * file keys.
 *
 * @param host listen address of both ports
 * @param port port of the scheduler verbs
 * @param prefix URL prefix of the scheduler verbs, e.g. {@code /scheduler}
 * @param tlsCert PEM certificate of the verbs port (enableHTTPS), or null
 * @param tlsKey PEM key of the verbs port, or null
 * @param clientCa PEM CA that client certificates must chain to, or null (no client auth)
 * @param insecureVerbs the operator's explicit consent to verbs without client authentication
 * @param inspectionPort port of the inspection API, page, probes and metrics
 * @param inspectionTlsCert PEM certificate of the inspection port, or null (HTTP)
 * @param inspectionTlsKey PEM key of the inspection port, or null
 * @param defaultPolicy policy of pods without the alignment annotations
 * @param resources the GPU and HCA resources as the device plugins register them
 * @param assumedTtl how long an assumed plan holds devices without the agent's report
 * @param bodyLimit largest request body accepted, in bytes
 * @param demo run on the embedded demo cluster
 * @param demoTopologies directory of NodeTopology files (JSON or YAML) for the demo, or null
 * @param leaderElection run fabric8 leader election on a Lease
 * @param leaseNamespace namespace of the Lease
 * @param leaseName name of the Lease
 * @param identity this replica's identity in the Lease
 * @param cacheSize entries of the per-node answer cache
 * @param nodeClassDefaults policies of pods without the annotations on nodes of the labels each
 *     entry selects, the first matching entry winning; empty when none
 * @param rehearsalCycles filter, prioritize and bind cycles a standby rehearses while another
 *     replica leads; 0 for none
 */
public record ExtenderConfig(
    String host,
    int port,
    String prefix,
    Path tlsCert,
    Path tlsKey,
    Path clientCa,
    boolean insecureVerbs,
    int inspectionPort,
    Path inspectionTlsCert,
    Path inspectionTlsKey,
    AlignmentPolicy defaultPolicy,
    ResourceNames resources,
    Duration assumedTtl,
    long bodyLimit,
    boolean demo,
    Path demoTopologies,
    boolean leaderElection,
    String leaseNamespace,
    String leaseName,
    String identity,
    long cacheSize,
    List<NodeClassDefault> nodeClassDefaults,
    int rehearsalCycles) {

  public static final int DEFAULT_PORT = 8888;

  public static final int DEFAULT_INSPECTION_PORT = 8889;

  public ExtenderConfig {
    nodeClassDefaults = nodeClassDefaults == null ? List.of() : List.copyOf(nodeClassDefaults);
    for (int p : new int[] {port, inspectionPort}) {
      if (p < 0 || p > 65535) {
        throw new InvalidConfigurationException("port " + p + " is out of range 0..65535");
      }
    }
    if (port == inspectionPort && port != 0) {
      throw new InvalidConfigurationException(
          "--port and --inspection-port are both "
              + port
              + ": the verbs and the inspection API need a port each");
    }
    if ((inspectionTlsCert == null) != (inspectionTlsKey == null)) {
      throw new InvalidConfigurationException(
          "inspection TLS needs both --inspection-tls-cert and --inspection-tls-key (got only one)");
    }
    if (!prefix.startsWith("/") || prefix.endsWith("/") && prefix.length() > 1) {
      throw new InvalidConfigurationException(
          "prefix '" + prefix + "' must start with / and not end with /");
    }
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new InvalidConfigurationException(
          "TLS needs both --tls-cert and --tls-key (got only one)");
    }
    if (clientCa != null && tlsCert == null) {
      throw new InvalidConfigurationException("--client-ca needs --tls-cert and --tls-key");
    }
    for (Path p : new Path[] {tlsCert, tlsKey, clientCa, inspectionTlsCert, inspectionTlsKey}) {
      if (p != null && !Files.isReadable(p)) {
        throw new InvalidConfigurationException(
            "cannot read " + p + " (check the path and the mounted secret)");
      }
    }
    if (demoTopologies != null && !Files.isDirectory(demoTopologies)) {
      throw new InvalidConfigurationException(
          "--demo-topologies " + demoTopologies + " is not a directory");
    }
    if (assumedTtl.isNegative() || assumedTtl.isZero()) {
      throw new InvalidConfigurationException(
          "assumed-plan TTL must be positive, got " + assumedTtl);
    }
    if (bodyLimit < 1024) {
      throw new InvalidConfigurationException(
          "body limit must be at least 1024 bytes, got " + bodyLimit);
    }
    if (cacheSize < 1) {
      throw new InvalidConfigurationException("cache size must be positive, got " + cacheSize);
    }
    if (rehearsalCycles < 0) {
      throw new InvalidConfigurationException(
          "standby rehearsal cycles must be 0 (off) or more, got " + rehearsalCycles);
    }
  }

  /** The defaults: port 8888, prefix /scheduler, switch/required, 5 min TTL, 64 MiB bodies. */
  public static ExtenderConfig defaults() {
    return load(List.of(), Map.of());
  }

  /**
   * Flags over environment over the {@code --config} file over defaults ({@link ExtenderSettings}).
   *
   * @throws InvalidConfigurationException naming the flag, the variable and the bad value, or the
   *     values that are each fine but wrong together
   */
  public static ExtenderConfig load(List<String> args, Map<String, String> env) {
    return from(ExtenderSettings.SETTINGS.resolve(args, env, YamlFile::read), env);
  }

  /** From resolved settings; {@code env} gives the identity's fallback, {@code HOSTNAME}. */
  public static ExtenderConfig from(Resolved v, Map<String, String> env) {
    ExtenderConfig config = read(v, env);
    config.checkTlsFiles();
    return config;
  }

  private static ExtenderConfig read(Resolved v, Map<String, String> env) {
    return new ExtenderConfig(
        v.get(ExtenderSettings.HOST),
        v.get(ExtenderSettings.PORT),
        v.get(ExtenderSettings.PREFIX),
        v.get(ExtenderSettings.TLS_CERT),
        v.get(ExtenderSettings.TLS_KEY),
        v.get(ExtenderSettings.CLIENT_CA),
        v.get(ExtenderSettings.INSECURE_VERBS),
        v.get(ExtenderSettings.INSPECTION_PORT),
        v.get(ExtenderSettings.INSPECTION_TLS_CERT),
        v.get(ExtenderSettings.INSPECTION_TLS_KEY),
        new AlignmentPolicy(
            v.get(ExtenderSettings.DEFAULT_ALIGNMENT), v.get(ExtenderSettings.DEFAULT_MODE)),
        new ResourceNames(
            v.get(ExtenderSettings.GPU_RESOURCE), v.get(ExtenderSettings.HCA_RESOURCE)),
        v.get(ExtenderSettings.ASSUMED_TTL),
        v.get(ExtenderSettings.BODY_LIMIT),
        v.get(ExtenderSettings.DEMO),
        v.get(ExtenderSettings.DEMO_TOPOLOGIES),
        v.get(ExtenderSettings.LEADER_ELECTION),
        v.get(ExtenderSettings.LEASE_NAMESPACE),
        v.get(ExtenderSettings.LEASE_NAME),
        v.get(ExtenderSettings.IDENTITY, hostname(env)),
        v.get(ExtenderSettings.CACHE_SIZE),
        v.get(ExtenderSettings.NODE_CLASS_DEFAULTS),
        v.get(ExtenderSettings.REHEARSAL_CYCLES));
  }

  /** Both listeners on ports the system chooses: for tests. */
  public ExtenderConfig onFreePorts() {
    return new ExtenderConfig(
        host,
        0,
        prefix,
        tlsCert,
        tlsKey,
        clientCa,
        insecureVerbs,
        0,
        inspectionTlsCert,
        inspectionTlsKey,
        defaultPolicy,
        resources,
        assumedTtl,
        bodyLimit,
        demo,
        demoTopologies,
        leaderElection,
        leaseNamespace,
        leaseName,
        identity,
        cacheSize,
        nodeClassDefaults,
        rehearsalCycles);
  }

  public ExtenderConfig withBodyLimit(long value) {
    return new ExtenderConfig(
        host,
        port,
        prefix,
        tlsCert,
        tlsKey,
        clientCa,
        insecureVerbs,
        inspectionPort,
        inspectionTlsCert,
        inspectionTlsKey,
        defaultPolicy,
        resources,
        assumedTtl,
        value,
        demo,
        demoTopologies,
        leaderElection,
        leaseNamespace,
        leaseName,
        identity,
        cacheSize,
        nodeClassDefaults,
        rehearsalCycles);
  }

  public boolean tls() {
    return tlsCert != null;
  }

  public boolean inspectionTls() {
    return inspectionTlsCert != null;
  }

  /**
   * Refuses to serve bind to anyone who reaches the port: outside the demo, the verbs need a client
   * CA unless {@code --insecure-verbs} says otherwise.
   *
   * @throws InvalidConfigurationException saying what is exposed and the two ways out
   */
  public void requireVerbsAuthentication() {
    if (demo || insecureVerbs || clientCa != null) {
      return;
    }
    throw new InvalidConfigurationException(
        "the verbs port "
            + port
            + " would serve bind "
            + (tls() ? "over HTTPS without client certificates" : "over plain HTTP")
            + ", so anyone who reaches it could bind pods to any node: give --tls-cert,"
            + " --tls-key and --client-ca (the Secrets of docs/install.md, \"Certificates\"), or"
            + " pass --insecure-verbs (TANDEM_EXTENDER_INSECURE_VERBS=true) for development");
  }

  /**
   * Parses every configured certificate, key and CA file.
   *
   * @throws InvalidConfigurationException naming the file, the setting and the fix
   */
  public void checkTlsFiles() {
    if (tls()) {
      TlsFiles.checkPair("--tls-cert", tlsCert, "--tls-key", tlsKey);
    }
    if (clientCa != null) {
      TlsFiles.checkCa("--client-ca", clientCa);
    }
    if (inspectionTls()) {
      TlsFiles.checkPair(
          "--inspection-tls-cert", inspectionTlsCert, "--inspection-tls-key", inspectionTlsKey);
    }
  }

  /** One line for the start-up log. */
  public String describe() {
    return "verbs on "
        + host
        + ":"
        + port
        + (tls()
            ? " (HTTPS"
                + (clientCa != null ? ", client certificates from " + clientCa : ", no client auth")
                + ")"
            : " (HTTP)")
        + (insecureVerbs ? " [--insecure-verbs]" : "")
        + ", inspection on "
        + host
        + ":"
        + inspectionPort
        + (inspectionTls() ? " (HTTPS)" : " (HTTP)")
        + ", prefix "
        + prefix
        + ", default policy "
        + defaultPolicy
        + (nodeClassDefaults.isEmpty()
            ? ""
            : " (" + nodeClassDefaults.size() + " node-class defaults)")
        + ", resources "
        + resources.gpu()
        + " and "
        + resources.hca()
        + ", assumed-plan TTL "
        + assumedTtl
        + ", body limit "
        + bodyLimit
        + " bytes"
        + (demo
            ? ", demo" + (demoTopologies != null ? " from " + demoTopologies : "")
            : leaderElection
                ? ", leader election on Lease "
                    + leaseNamespace
                    + "/"
                    + leaseName
                    + " as "
                    + identity
                : ", no leader election");
  }

  private static String hostname(Map<String, String> env) {
    String h = env.get("HOSTNAME");
    return h == null || h.isBlank() ? "tandem-extender-" + ProcessHandle.current().pid() : h;
  }
}
