package dev.tandem.extender;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;

/** A plain JDK HTTP client for tests, speaking to a server on localhost. */
public final class Http {

  private final HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final String base;

  public Http(int port) {
    this.base = "http://localhost:" + port;
  }

  public HttpResponse<String> post(String path, String body) {
    return join(postAsync(path, body));
  }

  public CompletableFuture<HttpResponse<String>> postAsync(String path, String body) {
    return client.sendAsync(HttpRequest.newBuilder(URI.create(base + path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> get(String path) {
    return join(client.sendAsync(HttpRequest.newBuilder(URI.create(base + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString()));
  }

  public static String golden(String name) {
    try {
      return Files.readString(Path.of("src/test/resources/golden", name), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static <T> T join(CompletableFuture<T> f) {
    return f.join();
  }
}
