package dev.tandem.simulator.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.topology.policy.Alignment;
import dev.tandem.topology.policy.AlignmentMode;
import dev.tandem.topology.policy.AlignmentPolicy;
import dev.tandem.topology.policy.InvalidPolicyException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a trace: CSV with the header {@code arrival,gpus,hcas,policy,duration} (policy optional,
 * {@code switch} when empty), or a JSON array of objects with those fields. Times are seconds. A
 * bad value is refused naming the line (CSV line, or the JSON array element counted from 1) and the
 * field.
 */
public final class TraceReader {

  static final List<String> FIELDS = List.of("arrival", "gpus", "hcas", "policy", "duration");

  private TraceReader() {}

  /** Reads a trace file; {@code .json} is JSON, anything else CSV. */
  public static List<PodSpec> read(Path file, NodeLimits limits) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read trace " + file + ": " + e.getMessage(), e);
    }
    String name = file.toString();
    return name.endsWith(".json") ? json(text, name, limits) : csv(text, name, limits);
  }

  /** Parses CSV text. */
  public static List<PodSpec> csv(String text, String file, NodeLimits limits) {
    String[] lines = text.split("\r?\n", -1);
    if (lines.length == 0 || lines[0].isBlank()) {
      throw new TraceException(
          file, "empty trace; the first line must be " + String.join(",", FIELDS));
    }
    List<String> header = List.of(lines[0].trim().split("\\s*,\\s*"));
    for (String f : List.of("arrival", "gpus", "hcas", "duration")) {
      if (!header.contains(f)) {
        throw new TraceException(file, 1, f, "missing from the header " + lines[0].trim());
      }
    }
    List<PodSpec> pods = new ArrayList<>();
    for (int i = 1; i < lines.length; i++) {
      if (lines[i].isBlank()) {
        continue;
      }
      String[] cells = lines[i].split(",", -1);
      Record r = new Record(file, i + 1, new HashMap<>(), limits);
      for (int c = 0; c < header.size(); c++) {
        r.values().put(header.get(c), c < cells.length ? cells[c].trim() : "");
      }
      pods.add(r.toPod(pods.size()));
    }
    return sorted(pods);
  }

  /** Parses a JSON array. */
  public static List<PodSpec> json(String text, String file, NodeLimits limits) {
    JsonNode root;
    try {
      root = new ObjectMapper().readTree(text);
    } catch (IOException e) {
      throw new TraceException(file, "not JSON: " + e.getMessage());
    }
    if (root == null || !root.isArray()) {
      throw new TraceException(file, "a JSON trace is an array of objects with " + FIELDS);
    }
    List<PodSpec> pods = new ArrayList<>();
    for (int i = 0; i < root.size(); i++) {
      Map<String, String> values = new HashMap<>();
      JsonNode item = root.get(i);
      for (String f : FIELDS) {
        JsonNode v = item.get(f);
        values.put(f, v == null || v.isNull() ? "" : v.asText());
      }
      pods.add(new Record(file, i + 1, values, limits).toPod(pods.size()));
    }
    return sorted(pods);
  }

  private static List<PodSpec> sorted(List<PodSpec> pods) {
    List<PodSpec> byArrival = new ArrayList<>(pods);
    byArrival.sort(Comparator.comparingDouble(PodSpec::arrival).thenComparingInt(PodSpec::id));
    List<PodSpec> out = new ArrayList<>();
    for (PodSpec p : byArrival) {
      out.add(new PodSpec(out.size(), p.arrival(), p.gpus(), p.hcas(), p.policy(), p.duration()));
    }
    return List.copyOf(out);
  }

  /** One line's values by field name. */
  private record Record(String file, int line, Map<String, String> values, NodeLimits limits) {

    PodSpec toPod(int id) {
      double arrival = number("arrival", false);
      int gpus = count("gpus");
      int hcas = count("hcas");
      if (gpus + hcas == 0) {
        throw new TraceException(file, line, "gpus", "unknown shape 0+0: a pod needs GPUs or HCAs");
      }
      if (gpus > limits.gpus() || hcas > limits.hcas()) {
        throw new TraceException(
            file,
            line,
            gpus > limits.gpus() ? "gpus" : "hcas",
            "unknown shape "
                + gpus
                + "+"
                + hcas
                + ": no node of the cluster has that many (largest: "
                + limits.gpus()
                + " GPUs, "
                + limits.hcas()
                + " HCAs)");
      }
      double duration = number("duration", true);
      return new PodSpec(id, arrival, gpus, hcas, policy(), duration);
    }

    private String value(String field) {
      String v = values.get(field);
      if (v == null || v.isEmpty()) {
        throw new TraceException(file, line, field, "missing");
      }
      return v;
    }

    private double number(String field, boolean positive) {
      String v = value(field);
      double d;
      try {
        d = Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw new TraceException(file, line, field, "'" + v + "' is not a number of seconds");
      }
      if (Double.isNaN(d) || Double.isInfinite(d) || d < 0 || (positive && d == 0)) {
        throw new TraceException(
            file,
            line,
            field,
            v
                + " is "
                + (d < 0 ? "negative" : "not a usable time")
                + "; give seconds"
                + (positive ? " above 0" : " from 0"));
      }
      return d;
    }

    private int count(String field) {
      String v = value(field);
      try {
        int n = Integer.parseInt(v);
        if (n >= 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new TraceException(file, line, field, "'" + v + "' is not a device count (0 or more)");
    }

    private AlignmentPolicy policy() {
      String v = values.getOrDefault("policy", "");
      if (v.isEmpty()) {
        return AlignmentPolicy.DEFAULT;
      }
      try {
        return new AlignmentPolicy(Alignment.parse(v), AlignmentMode.REQUIRED);
      } catch (InvalidPolicyException e) {
        throw new TraceException(file, line, "policy", e.getMessage());
      }
    }
  }
}
