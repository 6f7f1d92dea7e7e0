package dev.tandem.benchmarks.extender;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import java.time.Duration;
import java.util.Arrays;
import java.util.function.IntFunction;

/**
 * A bounded closed-loop client: {@code concurrency} requests in flight, each answered request
 * immediately followed by the next, until {@code requests} are answered or the time cap passes.
 * Runs on the client's event loop; latency is from send to the whole response body received.
 */
final class ClosedLoop {

  /** What one phase measured. */
  record Phase(
      long[] latenciesNanos, long elapsedNanos, int errors, String firstError, Buffer firstBody) {

    /** Both phases as one: latencies pooled, elapsed times added. */
    Phase plus(Phase other) {
      if (other == null) {
        return this;
      }
      long[] all =
          Arrays.copyOf(latenciesNanos, latenciesNanos.length + other.latenciesNanos.length);
      System.arraycopy(
          other.latenciesNanos, 0, all, latenciesNanos.length, other.latenciesNanos.length);
      return new Phase(
          all,
          elapsedNanos + other.elapsedNanos,
          errors + other.errors,
          firstError != null ? firstError : other.firstError,
          firstBody != null ? firstBody : other.firstBody);
    }

    int answered() {
      return latenciesNanos.length;
    }

    double throughput() {
      return answered() / (elapsedNanos / 1e9);
    }

    double percentileMillis(double p) {
      if (latenciesNanos.length == 0) {
        return Double.NaN;
      }
      long[] sorted = latenciesNanos.clone();
      Arrays.sort(sorted);
      int index = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
      return sorted[Math.max(0, Math.min(index, sorted.length - 1))] / 1e6;
    }
  }

  private final WebClient client;
  private final int port;
  private final String path;
  private final IntFunction<Buffer> bodies;
  private final int concurrency;
  private final boolean gzip;

  /**
   * {@code bodies} gives the body of the k-th request of a run; {@code gzip} sends {@code
   * Accept-Encoding: gzip}, as kube-scheduler's Go client does.
   */
  ClosedLoop(
      WebClient client,
      int port,
      String path,
      IntFunction<Buffer> bodies,
      int concurrency,
      boolean gzip) {
    this.client = client;
    this.port = port;
    this.path = path;
    this.bodies = bodies;
    this.concurrency = concurrency;
    this.gzip = gzip;
  }

  /** Sends until {@code requests} answers (successful or not) arrived or {@code cap} passed. */
  Future<Phase> run(int requests, Duration cap) {
    return new Run(requests, cap.toNanos()).start();
  }

  private final class Run {
    private final int target;
    private final long capNanos;
    private final long[] latencies;
    private final Promise<Phase> done = Promise.promise();
    private int sent;
    private int answered;
    private int inFlight;
    private int errors;
    private String firstError;
    private Buffer firstBody;
    private long startNanos;

    Run(int target, long capNanos) {
      this.target = target;
      this.capNanos = capNanos;
      this.latencies = new long[target];
    }

    Future<Phase> start() {
      startNanos = System.nanoTime();
      for (int i = 0; i < concurrency && sent < target; i++) {
        send();
      }
      return done.future();
    }

    private void send() {
      Buffer body = bodies.apply(sent++);
      inFlight++;
      long t0 = System.nanoTime();
      client
          .post(port, "127.0.0.1", path)
          .putHeader("Content-Type", "application/json")
          .putHeader("Accept-Encoding", gzip ? "gzip" : "identity")
          .sendBuffer(body)
          .onComplete(
              ar ->
                  answered(
                      t0,
                      ar.succeeded() ? ar.result() : null,
                      ar.failed() ? ar.cause().toString() : null));
    }

    private void answered(long t0, HttpResponse<Buffer> response, String failure) {
      long now = System.nanoTime();
      inFlight--;
      if (response != null && response.statusCode() == 200) {
        latencies[answered++] = now - t0;
        if (firstBody == null) {
          firstBody = response.body();
        }
      } else {
        errors++;
        if (firstError == null) {
          firstError =
              failure != null
                  ? failure
                  : "HTTP " + response.statusCode() + ": " + response.bodyAsString();
        }
      }
      boolean timeLeft = now - startNanos < capNanos;
      if (answered + errors + inFlight < target && timeLeft) {
        send();
      } else if (inFlight == 0) {
        done.complete(
            new Phase(
                Arrays.copyOf(latencies, answered),
                now - startNanos,
                errors,
                firstError,
                firstBody));
      }
    }
  }
}
