package dev.tandem.extender;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.concurrent.CompletableFuture;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * A plain JDK HTTP client for tests, speaking to a server on localhost. (Not Vert.x's client: in
 * Vert.x 5.0.7 a response that ends before {@code body()} is asked for can leave that future
 * pending forever, eclipse-vertx/vert.x#6038.)
 */
public final class Http {

  private final HttpClient client;
  private final String base;

  public Http(int port) {
    this.client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    this.base = "http://localhost:" + port;
  }

  /** Over HTTPS, trusting only the server certificate in this PEM file (host name checked). */
  public Http(int port, Path serverCertificate) {
    this(port, serverCertificate, null, null);
  }

  /**
   * Over HTTPS as above, presenting the client certificate and key of these PEM files (none when
   * null).
   */
  public Http(int port, Path serverCertificate, Path clientCertificate, Path clientKey) {
    this(port, HttpClient.Version.HTTP_1_1, serverCertificate, clientCertificate, clientKey);
  }

  /** Over HTTPS as above, asking for this version through ALPN. */
  public Http(
      int port,
      HttpClient.Version version,
      Path serverCertificate,
      Path clientCertificate,
      Path clientKey) {
    this.client =
        HttpClient.newBuilder()
            .version(version)
            .sslContext(tls(serverCertificate, clientCertificate, clientKey))
            .build();
    this.base = "https://localhost:" + port;
  }

  private Http(HttpClient client, String base) {
    this.client = client;
    this.base = base;
  }

  /** The same client (its certificates) towards another port of localhost. */
  public Http onPort(int port) {
    return new Http(client, base.substring(0, base.lastIndexOf(':') + 1) + port);
  }

  public HttpResponse<String> post(String path, String body) {
    return join(postAsync(path, body));
  }

  /** Posts these bytes as they are (for bodies that are not UTF-8). */
  public HttpResponse<String> post(String path, byte[] body) {
    return join(post(path, HttpRequest.BodyPublishers.ofByteArray(body)));
  }

  public CompletableFuture<HttpResponse<String>> postAsync(String path, String body) {
    return post(path, HttpRequest.BodyPublishers.ofString(body));
  }

  private CompletableFuture<HttpResponse<String>> post(
      String path, HttpRequest.BodyPublisher body) {
    return client.sendAsync(
        HttpRequest.newBuilder(URI.create(base + path))
            .header("Content-Type", "application/json")
            .POST(body)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> get(String path) {
    return join(
        client.sendAsync(
            HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
            HttpResponse.BodyHandlers.ofString()));
  }

  public static String golden(String name) {
    try {
      return Files.readString(Path.of("src/test/resources/golden", name), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static SSLContext tls(Path pem, Path clientCertificate, Path clientKey) {
    try (InputStream in = Files.newInputStream(pem)) {
      KeyStore trust = KeyStore.getInstance(KeyStore.getDefaultType());
      trust.load(null, null);
      trust.setCertificateEntry(
          "server", CertificateFactory.getInstance("X.509").generateCertificate(in));
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext tls = SSLContext.getInstance("TLS");
      tls.init(
          clientCertificate == null ? null : keys(clientCertificate, clientKey),
          tmf.getTrustManagers(),
          null);
      return tls;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot trust " + pem, e);
    }
  }

  private static KeyManager[] keys(Path certificate, Path key) {
    try {
      return new PemKeyCertOptions()
          .setCertValue(Buffer.buffer(Files.readAllBytes(certificate)))
          .setKeyValue(Buffer.buffer(Files.readAllBytes(key)))
          .getKeyManagerFactory(null)
          .getKeyManagers();
    } catch (Exception e) {
      throw new IllegalStateException("cannot read the client key pair " + certificate, e);
    }
  }

  private static <T> T join(CompletableFuture<T> f) {
    return f.join();
  }
}
