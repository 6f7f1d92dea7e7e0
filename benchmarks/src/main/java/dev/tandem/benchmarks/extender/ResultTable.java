package dev.tandem.benchmarks.extender;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** The figures of every run, printed as a Markdown table with the ratio to the floor. */
final class ResultTable {

  private record Row(
      int nodes, String verb, ClosedLoop.Phase phase, ClosedLoop.Phase floor, double load) {}

  private final List<Row> rows = new ArrayList<>();
  private ClosedLoop.Phase floor;

  void add(int nodes, String verb, ClosedLoop.Phase phase, boolean isFloor, double loadAverage) {
    if (isFloor) {
      floor = phase;
    }
    rows.add(new Row(nodes, verb, phase, floor, loadAverage));
  }

  void print(PrintStream out) {
    out.println(
        "| nodes | verb | requests | p50 ms | p99 ms | req/s | p50 / floor | p99 / floor"
            + " | passed (first answer) | answer bytes | load avg |");
    out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    for (Row r : rows) {
      ClosedLoop.Phase p = r.phase();
      out.printf(
          "| %,d | %s | %,d | %.2f | %.2f | %,.0f | %.2f | %.2f | %s | %,d | %.1f |%n",
          r.nodes(),
          r.verb(),
          p.answered(),
          p.percentileMillis(50),
          p.percentileMillis(99),
          p.throughput(),
          p.percentileMillis(50) / r.floor().percentileMillis(50),
          p.percentileMillis(99) / r.floor().percentileMillis(99),
          passed(p.firstBody()),
          p.firstBody() == null ? 0 : p.firstBody().length(),
          r.load());
    }
  }

  /** Nodes passed by a filter answer, or scored above 0 by a prioritize answer (first request). */
  private static String passed(Buffer body) {
    if (body == null) {
      return "?";
    }
    Object decoded = Json.decodeValue(body);
    if (decoded instanceof JsonObject filter) {
      JsonArray names = filter.getJsonArray("NodeNames");
      return names == null ? "0" : String.format("%,d", names.size());
    }
    if (decoded instanceof JsonArray priorities) {
      long scored =
          priorities.stream().filter(o -> ((JsonObject) o).getLong("Score", 0L) > 0).count();
      return String.format("%,d scored", scored);
    }
    return "?";
  }
}
