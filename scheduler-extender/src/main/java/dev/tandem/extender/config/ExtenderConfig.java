package dev.tandem.extender.config;

import dev.tandem.kit.config.InvalidConfigurationException;
import dev.tandem.kit.config.Resolved;
import dev.tandem.topology.policy.AlignmentPolicy;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * The extender's settings, validated: see {@link ExtenderSettings} for the flags, variables and
 * file keys.
 *
 * @param host listen address
 * @param port listen port
 * @param prefix URL prefix of the scheduler verbs, e.g. {@code /scheduler}
 * @param tlsCert PEM certificate for HTTPS (enableHTTPS), or null
 * @param tlsKey PEM key for HTTPS, or null
 * @param clientCa PEM CA that client certificates must chain to, or null (no client auth)
 * @param defaultPolicy policy of pods without the alignment annotations
 * @param assumedTtl how long an assumed plan holds devices without the agent's report
 * @param bodyLimit largest request body accepted, in bytes
 * @param demo run on the embedded demo cluster
 * @param demoTopologies directory of NodeTopology files (JSON or YAML) for the demo, or null
 * @param leaderElection run fabric8 leader election on a Lease
 * @param leaseNamespace namespace of the Lease
 * @param leaseName name of the Lease
 * @param identity this replica's identity in the Lease
 * @param cacheSize entries of the per-node answer cache
 */
public record ExtenderConfig(
    String host,
    int port,
    String prefix,
    Path tlsCert,
    Path tlsKey,
    Path clientCa,
    AlignmentPolicy defaultPolicy,
    Duration assumedTtl,
    long bodyLimit,
    boolean demo,
    Path demoTopologies,
    boolean leaderElection,
    String leaseNamespace,
    String leaseName,
    String identity,
    long cacheSize) {

  public static final int DEFAULT_PORT = 8888;

  public ExtenderConfig {
    if (port < 0 || port > 65535) {
      throw new ConfigException("port " + port + " is out of range 0..65535");
    }
    if (!prefix.startsWith("/") || prefix.endsWith("/") && prefix.length() > 1) {
      throw new ConfigException("prefix '" + prefix + "' must start with / and not end with /");
    }
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new ConfigException("TLS needs both --tls-cert and --tls-key (got only one)");
    }
    if (clientCa != null && tlsCert == null) {
      throw new ConfigException("--client-ca needs --tls-cert and --tls-key");
    }
    for (Path p : new Path[] {tlsCert, tlsKey, clientCa}) {
      if (p != null && !Files.isReadable(p)) {
        throw new ConfigException("cannot read " + p + " (check the path and the mounted secret)");
      }
    }
    if (demoTopologies != null && !Files.isDirectory(demoTopologies)) {
      throw new ConfigException("--demo-topologies " + demoTopologies + " is not a directory");
    }
    if (assumedTtl.isNegative() || assumedTtl.isZero()) {
      throw new ConfigException("assumed-plan TTL must be positive, got " + assumedTtl);
    }
    if (bodyLimit < 1024) {
      throw new ConfigException("body limit must be at least 1024 bytes, got " + bodyLimit);
    }
    if (cacheSize < 1) {
      throw new ConfigException("cache size must be positive, got " + cacheSize);
    }
  }

  /** The defaults: port 8888, prefix /scheduler, switch/required, 5 min TTL, 64 MiB bodies. */
  public static ExtenderConfig defaults() {
    return load(List.of(), Map.of());
  }

  /**
   * Flags over environment over the {@code --config} file over defaults ({@link ExtenderSettings}).
   *
   * @throws InvalidConfigurationException naming the flag, the variable and the bad value
   * @throws ConfigException for values that are each fine but wrong together
   */
  public static ExtenderConfig load(List<String> args, Map<String, String> env) {
    return from(ExtenderSettings.SETTINGS.resolve(args, env, YamlFile::read), env);
  }

  /** From resolved settings; {@code env} gives the identity's fallback, {@code HOSTNAME}. */
  public static ExtenderConfig from(Resolved v, Map<String, String> env) {
    return new ExtenderConfig(
        v.get(ExtenderSettings.HOST),
        v.get(ExtenderSettings.PORT),
        v.get(ExtenderSettings.PREFIX),
        v.get(ExtenderSettings.TLS_CERT),
        v.get(ExtenderSettings.TLS_KEY),
        v.get(ExtenderSettings.CLIENT_CA),
        new AlignmentPolicy(
            v.get(ExtenderSettings.DEFAULT_ALIGNMENT), v.get(ExtenderSettings.DEFAULT_MODE)),
        v.get(ExtenderSettings.ASSUMED_TTL),
        v.get(ExtenderSettings.BODY_LIMIT),
        v.get(ExtenderSettings.DEMO),
        v.get(ExtenderSettings.DEMO_TOPOLOGIES),
        v.get(ExtenderSettings.LEADER_ELECTION),
        v.get(ExtenderSettings.LEASE_NAMESPACE),
        v.get(ExtenderSettings.LEASE_NAME),
        v.get(ExtenderSettings.IDENTITY, hostname(env)),
        v.get(ExtenderSettings.CACHE_SIZE));
  }

  public ExtenderConfig withPort(int value) {
    return new ExtenderConfig(
        host,
        value,
        prefix,
        tlsCert,
        tlsKey,
        clientCa,
        defaultPolicy,
        assumedTtl,
        bodyLimit,
        demo,
        demoTopologies,
        leaderElection,
        leaseNamespace,
        leaseName,
        identity,
        cacheSize);
  }

  public ExtenderConfig withBodyLimit(long value) {
    return new ExtenderConfig(
        host,
        port,
        prefix,
        tlsCert,
        tlsKey,
        clientCa,
        defaultPolicy,
        assumedTtl,
        value,
        demo,
        demoTopologies,
        leaderElection,
        leaseNamespace,
        leaseName,
        identity,
        cacheSize);
  }

  public boolean tls() {
    return tlsCert != null;
  }

  /** One line for the start-up log. */
  public String describe() {
    return "listen "
        + host
        + ":"
        + port
        + (tls()
            ? " (HTTPS" + (clientCa != null ? ", client CA " + clientCa : "") + ")"
            : " (HTTP)")
        + ", prefix "
        + prefix
        + ", default policy "
        + defaultPolicy
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
