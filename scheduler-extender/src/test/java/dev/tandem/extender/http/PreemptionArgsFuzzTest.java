package dev.tandem.extender.http;

import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.vertx.core.buffer.Buffer;

/**
 * Any preempt body either decodes into proposals or is refused as a {@link BadRequest} (a 400);
 * nothing else escapes (a 500). Runs its corpus in {@code mvn verify}; {@code benchmarks/run-fuzz}
 * fuzzes it for longer.
 */
class PreemptionArgsFuzzTest {

  @FuzzTest(maxDuration = "60s")
  void decodeRefusesOrReadsEveryNode(byte[] body) {
    PreemptionArgs args;
    try {
      args = PreemptionArgs.decode(Buffer.buffer(body));
    } catch (BadRequest e) {
      return;
    }
    assertNotNull(args.pod());
    args.proposals().values().forEach(v -> v.pods().forEach(p -> assertNotNull(p.uid())));
  }
}
