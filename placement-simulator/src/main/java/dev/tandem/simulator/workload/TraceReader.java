package dev.tandem.simulator.workload;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
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
 * bad value is refused naming the line (of the CSV row, of the JSON field, or of its element when
 * the field is missing) and the field.
 *
 * <p>Optional gang fields ({@link GangMember}): {@code gang} (its name; empty: the pod is alone),
 * {@code gang-size} (required with a gang), {@code gang-rank} and {@code rail-alignment} ({@code
 * required} or {@code preferred}, the default). A trace without them reads as before.
 */
public final class TraceReader {

  static final List<String> FIELDS = List.of("arrival", "gpus", "hcas", "policy", "duration");

  static final String GANG = "gang";
  static final String GANG_SIZE = "gang-size";
  static final String GANG_RANK = "gang-rank";
  static final String RAIL_ALIGNMENT = "rail-alignment";

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
    GangLedger gangs = new GangLedger();
    for (int i = 1; i < lines.length; i++) {
      if (lines[i].isBlank()) {
        continue;
      }
      String[] cells = lines[i].split(",", -1);
      Record r = new Record(file, i + 1, new HashMap<>(), Map.of(), limits);
      for (int c = 0; c < header.size(); c++) {
        r.values().put(header.get(c), c < cells.length ? cells[c].trim() : "");
      }
      pods.add(gangs.admit(r.toPod(pods.size()), r::error));
    }
    return sorted(pods);
  }

  /** Parses a JSON array; errors name the line of the field at fault (or of its element). */
  public static List<PodSpec> json(String text, String file, NodeLimits limits) {
    List<PodSpec> pods = new ArrayList<>();
    GangLedger gangs = new GangLedger();
    try (JsonParser p = new JsonFactory().createParser(text)) {
      if (p.nextToken() != JsonToken.START_ARRAY) {
        throw new TraceException(file, "a JSON trace is an array of objects with " + FIELDS);
      }
      for (JsonToken t = p.nextToken(); t != JsonToken.END_ARRAY; t = p.nextToken()) {
        int line = p.currentTokenLocation().getLineNr();
        if (t != JsonToken.START_OBJECT) {
          throw new TraceException(
              file + ":" + line, "element " + (pods.size() + 1) + " is not an object of " + FIELDS);
        }
        Map<String, String> values = new HashMap<>();
        Map<String, Integer> lines = new HashMap<>();
        while (p.nextToken() == JsonToken.FIELD_NAME) {
          String field = p.currentName();
          JsonToken value = p.nextToken();
          lines.put(field, p.currentTokenLocation().getLineNr());
          values.put(field, scalar(p, value));
        }
        Record r = new Record(file, line, values, lines, limits);
        pods.add(gangs.admit(r.toPod(pods.size()), r::error));
      }
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? file : file + ":" + at.getLineNr() + ":" + at.getColumnNr();
      throw new TraceException(where, "not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new TraceException(file, "cannot read as JSON: " + e.getMessage());
    }
    return sorted(pods);
  }

  /** A field's value as text: "" for null, the text of a number or string, else what it is. */
  private static String scalar(JsonParser p, JsonToken value) throws IOException {
    return switch (value) {
      case VALUE_NULL -> "";
      case START_OBJECT, START_ARRAY -> {
        p.skipChildren();
        yield value == JsonToken.START_OBJECT ? "(an object)" : "(an array)";
      }
      default -> p.getText();
    };
  }

  private static List<PodSpec> sorted(List<PodSpec> pods) {
    List<PodSpec> byArrival = new ArrayList<>(pods);
    byArrival.sort(Comparator.comparingDouble(PodSpec::arrival).thenComparingInt(PodSpec::id));
    List<PodSpec> out = new ArrayList<>();
    for (PodSpec p : byArrival) {
      out.add(p.withId(out.size()));
    }
    return List.copyOf(out);
  }

  /**
   * One pod's values by field name.
   *
   * @param line the CSV line, or the line where the JSON element starts
   * @param lines the line of each JSON field, when it has one of its own
   */
  private record Record(
      String file,
      int line,
      Map<String, String> values,
      Map<String, Integer> lines,
      NodeLimits limits) {

    TraceException error(String field, String problem) {
      return new TraceException(file, lines.getOrDefault(field, line), field, problem);
    }

    PodSpec toPod(int id) {
      double arrival = number("arrival", false);
      int gpus = count("gpus");
      int hcas = count("hcas");
      if (gpus + hcas == 0) {
        throw error("gpus", "unknown shape 0+0: a pod needs GPUs or HCAs");
      }
      if (gpus > limits.gpus() || hcas > limits.hcas()) {
        throw error(
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
      return new PodSpec(id, arrival, gpus, hcas, policy(), duration, gang());
    }

    /** The pod's gang, or null; a gang field without {@code gang} is refused. */
    private GangMember gang() {
      String name = values.getOrDefault(GANG, "");
      if (name.isEmpty()) {
        for (String f : List.of(GANG_SIZE, GANG_RANK, RAIL_ALIGNMENT)) {
          if (!values.getOrDefault(f, "").isEmpty()) {
            throw error(
                f, "given without '" + GANG + "'; name the pod's gang, or leave " + f + " empty");
          }
        }
        return null;
      }
      int size = count(GANG_SIZE, "a gang size (1 or more members)");
      if (size < 1) {
        throw error(GANG_SIZE, "'0' is not a gang size (1 or more members)");
      }
      String rankText = values.getOrDefault(GANG_RANK, "");
      Integer rank = rankText.isEmpty() ? null : count(GANG_RANK, "a rank (0 or more)");
      if (rank != null && rank >= size) {
        throw error(
            GANG_RANK, rank + " is not a rank of a gang of " + size + " (0 to " + (size - 1) + ")");
      }
      return new GangMember(name, size, rank, railAlignment());
    }

    private AlignmentMode railAlignment() {
      try {
        return GangMember.railAlignment(values.getOrDefault(RAIL_ALIGNMENT, ""));
      } catch (IllegalArgumentException e) {
        throw error(RAIL_ALIGNMENT, e.getMessage());
      }
    }

    private String value(String field) {
      String v = values.get(field);
      if (v == null || v.isEmpty()) {
        throw error(field, "missing");
      }
      return v;
    }

    private double number(String field, boolean positive) {
      String v = value(field);
      double d;
      try {
        d = Double.parseDouble(v);
      } catch (NumberFormatException e) {
        throw error(field, "'" + v + "' is not a number of seconds");
      }
      if (Double.isNaN(d) || Double.isInfinite(d) || d < 0 || (positive && d == 0)) {
        throw error(
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
      return count(field, "a device count (0 or more)");
    }

    private int count(String field, String what) {
      String v = value(field);
      try {
        int n = Integer.parseInt(v);
        if (n >= 0) {
          return n;
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw error(field, "'" + v + "' is not " + what);
    }

    private AlignmentPolicy policy() {
      String v = values.getOrDefault("policy", "");
      if (v.isEmpty()) {
        return AlignmentPolicy.DEFAULT;
      }
      try {
        return new AlignmentPolicy(Alignment.parse(v), AlignmentMode.REQUIRED);
      } catch (InvalidPolicyException e) {
        throw error("policy", e.getMessage());
      }
    }
  }
}
