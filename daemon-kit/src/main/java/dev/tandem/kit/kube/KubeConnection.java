package dev.tandem.kit.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/**
 * How a daemon reaches the API server, and the one place that builds its fabric8 client (with the
 * JDK HTTP client: the daemons' poms exclude fabric8's Vert.x one).
 *
 * @param kubeconfig the kubeconfig file, or null for fabric8's default (in-cluster service account,
 *     else {@code $KUBECONFIG}, else {@code ~/.kube/config})
 * @param requestTimeout bound on each API request, or null for fabric8's
 * @param requestRetries fabric8's retries of a failed request, or -1 for fabric8's
 */
public record KubeConnection(Path kubeconfig, Duration requestTimeout, int requestRetries) {

  /** fabric8's defaults with {@code kubeconfig} (null: in-cluster or the default file). */
  public static KubeConnection of(Path kubeconfig) {
    return new KubeConnection(kubeconfig, null, -1);
  }

  /** This connection with a request timeout and retry limit. */
  public KubeConnection bounded(Duration timeout, int retries) {
    return new KubeConnection(kubeconfig, timeout, retries);
  }

  /**
   * A connection when there is somewhere to connect: {@code kubeconfig} when given, else the
   * in-cluster service account ({@code KUBERNETES_SERVICE_HOST} in {@code env}), else {@code
   * home/.kube/config} when readable; empty otherwise (a daemon that can run without the API).
   */
  public static Optional<KubeConnection> find(Path kubeconfig, Map<String, String> env, Path home) {
    if (kubeconfig != null) {
      return Optional.of(of(kubeconfig));
    }
    if (env.containsKey("KUBERNETES_SERVICE_HOST")) {
      return Optional.of(of(null));
    }
    Path file = home.resolve(".kube").resolve("config");
    return Files.isReadable(file) ? Optional.of(of(file)) : Optional.empty();
  }

  /** The fabric8 configuration. */
  public Config config() {
    Config c =
        kubeconfig == null
            ? Config.autoConfigure(null)
            : Config.fromKubeconfig(null, read(kubeconfig), kubeconfig.toString());
    if (requestTimeout != null) {
      c.setRequestTimeout((int) requestTimeout.toMillis());
    }
    if (requestRetries >= 0) {
      c.setRequestRetryBackoffLimit(requestRetries);
    }
    return c;
  }

  /** Threads that run the API client's HTTP work (see {@link BoundedJdkHttp}). */
  public static final int HTTP_THREADS = 8;

  /** A new client, its HTTP work on at most {@link #HTTP_THREADS} threads; the caller closes it. */
  public KubernetesClient client() {
    return new KubernetesClientBuilder()
        .withConfig(config())
        .withHttpClientFactory(new BoundedJdkHttp(HTTP_THREADS))
        .build();
  }

  /** Where the client connects, for the start-up log. */
  public String describe() {
    return kubeconfig == null ? "in-cluster or default kubeconfig" : "kubeconfig " + kubeconfig;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read kubeconfig " + file + ": " + e.getMessage(), e);
    }
  }
}
