package dev.tandem.extender;

import dev.tandem.extender.config.ExtenderConfig;
import dev.tandem.extender.config.TlsFiles;
import dev.tandem.kit.config.InvalidConfigurationException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.core.net.ServerSSLOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The TLS of one listener: its certificate and key, and the CA its clients' certificates must chain
 * to (none: no client authentication), with the flags that name them in messages.
 */
record ListenerTls(String certFlag, Path cert, String keyFlag, Path key, Path clientCa) {

  private static final Logger LOG = LoggerFactory.getLogger(ListenerTls.class);

  /**
   * How often the files are compared with what the listener serves. A Secret volume shows a renewed
   * certificate within about a minute of the renewal; this adds at most as much.
   */
  static final Duration RELOAD_EVERY = Duration.ofSeconds(30);

  /** The verbs port's TLS, or null when it serves plain HTTP. */
  static ListenerTls verbs(ExtenderConfig config) {
    return config.tls()
        ? new ListenerTls(
            "--tls-cert", config.tlsCert(), "--tls-key", config.tlsKey(), config.clientCa())
        : null;
  }

  /** The inspection port's TLS (never client authentication), or null for plain HTTP. */
  static ListenerTls inspection(ExtenderConfig config) {
    return config.inspectionTls()
        ? new ListenerTls(
            "--inspection-tls-cert",
            config.inspectionTlsCert(),
            "--inspection-tls-key",
            config.inspectionTlsKey(),
            null)
        : null;
  }

  /** Server options for a listener with this TLS, or plain HTTP when {@code tls} is null. */
  static HttpServerOptions options(ListenerTls tls) {
    HttpServerOptions o = new HttpServerOptions().setCompressionSupported(true);
    if (tls == null) {
      return o;
    }
    // ALPN offers HTTP/2: kube-scheduler's client (net/http configured for h2 once TLS is set)
    // then sends every verb, binds in flight included, over one connection, instead of opening a
    // TLS connection for each concurrent bind beyond the two it keeps idle over HTTP/1.1
    o.setSsl(true).setUseAlpn(true).setKeyCertOptions(tls.keyCert());
    if (tls.clientCa() != null) {
      o.setClientAuth(ClientAuth.REQUIRED).setTrustOptions(tls.trust());
    }
    return o;
  }

  /**
   * Serves rotated files without a restart: every {@code every}, on a worker, the files are
   * compared with the ones served; changed files that pass the start-up checks replace them for new
   * connections. Files caught half-written, or wrong, are logged and retried.
   */
  void reloadOnChange(Vertx vertx, HttpServer server, Duration every) {
    AtomicReference<String> served = new AtomicReference<>(digest());
    vertx.setPeriodic(
        every.toMillis(),
        id ->
            vertx
                .executeBlocking(() -> changedAndValid(served.get()), false)
                .compose(
                    next ->
                        next == null
                            ? Future.succeededFuture(false)
                            : server
                                .updateSSLOptions(ssl(), true)
                                .onSuccess(
                                    done -> {
                                      served.set(next);
                                      LOG.info("{} {}: reloaded the certificate", certFlag, cert);
                                    }))
                .onFailure(
                    e -> LOG.warn("{} {}: cannot reload: {}", certFlag, cert, e.toString())));
  }

  /** The new files' digest when they differ from {@code served} and pass the checks, else null. */
  private String changedAndValid(String served) {
    String now = digest();
    if (now == null || now.equals(served)) {
      return null;
    }
    try {
      TlsFiles.checkPair(certFlag, cert, keyFlag, key);
      if (clientCa != null) {
        TlsFiles.checkCa("--client-ca", clientCa);
      }
      return now;
    } catch (InvalidConfigurationException e) {
      LOG.warn(
          "not reloading the changed files, still serving the previous ones: {}", e.getMessage());
      return null;
    }
  }

  private String digest() {
    try {
      MessageDigest sha = MessageDigest.getInstance("SHA-256");
      for (Path p : clientCa == null ? new Path[] {cert, key} : new Path[] {cert, key, clientCa}) {
        sha.update(Files.readAllBytes(p));
      }
      return HexFormat.of().formatHex(sha.digest());
    } catch (IOException e) {
      LOG.debug("cannot read the certificate files now: {}", e.toString());
      return null;
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }

  private ServerSSLOptions ssl() {
    ServerSSLOptions o = new ServerSSLOptions().setKeyCertOptions(keyCert());
    o.setUseAlpn(true);
    if (clientCa != null) {
      o.setClientAuth(ClientAuth.REQUIRED).setTrustOptions(trust());
    }
    return o;
  }

  private PemKeyCertOptions keyCert() {
    return new PemKeyCertOptions().setCertPath(cert.toString()).setKeyPath(key.toString());
  }

  private PemTrustOptions trust() {
    return new PemTrustOptions().addCertPath(clientCa.toString());
  }
}
