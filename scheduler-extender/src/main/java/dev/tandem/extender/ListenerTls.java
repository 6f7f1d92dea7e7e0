package dev.tandem.extender;

import dev.tandem.extender.config.ExtenderConfig;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;
import java.nio.file.Path;

/**
 * The TLS of one listener: its certificate and key, and the CA its clients' certificates must chain
 * to (none: no client authentication).
 */
record ListenerTls(Path cert, Path key, Path clientCa) {

  /** The verbs port's TLS, or null when it serves plain HTTP. */
  static ListenerTls verbs(ExtenderConfig config) {
    return config.tls()
        ? new ListenerTls(config.tlsCert(), config.tlsKey(), config.clientCa())
        : null;
  }

  /** The inspection port's TLS (never client authentication), or null for plain HTTP. */
  static ListenerTls inspection(ExtenderConfig config) {
    return config.inspectionTls()
        ? new ListenerTls(config.inspectionTlsCert(), config.inspectionTlsKey(), null)
        : null;
  }

  /** Server options for a listener with this TLS, or plain HTTP when {@code tls} is null. */
  static HttpServerOptions options(ListenerTls tls) {
    HttpServerOptions o = new HttpServerOptions().setCompressionSupported(true);
    if (tls == null) {
      return o;
    }
    o.setSsl(true)
        .setKeyCertOptions(
            new PemKeyCertOptions()
                .setCertPath(tls.cert().toString())
                .setKeyPath(tls.key().toString()));
    if (tls.clientCa() != null) {
      o.setClientAuth(ClientAuth.REQUIRED)
          .setTrustOptions(new PemTrustOptions().addCertPath(tls.clientCa().toString()));
    }
    return o;
  }
}
