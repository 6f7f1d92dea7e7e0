package dev.tandem.api.rail;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.tandem.fixtures.RealMachines;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.rail.Rails;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Any bytes in the {@code --rail-map} file give either rails for the node (every entry applies to a
 * machine without an exception, each note naming the node and the setting) or the documented
 * refusal: an {@link IllegalArgumentException} naming {@code --rail-map}, the file and, for a bad
 * mapping, the entry and the field (docs/rails.md, "Bad input"); nothing else escapes. Runs its
 * corpus in {@code mvn verify}; {@code benchmarks/run-fuzz RailMap} fuzzes it for longer.
 */
class RailMapFuzzTest {

  private static final Path FILE = file();
  private static final String SETTING = "--rail-map " + FILE;
  private static final Machine MACHINE = RealMachines.hgxH200();
  private static final Map<String, String> LABELS = Map.of("tandem.dev/model", "hgx-h200");

  /** What follows {@code --rail-map FILE: } in a refusal. */
  private static final Pattern REFUSAL =
      Pattern.compile(
          "(cannot be read: .*"
              + "|is not JSON: .*"
              + "|is not a JSON array of \\{nodeSelector, rails\\} entries"
              + "|entry \\d+ (is not an object|has an unknown field '.*' \\(allowed: nodeSelector,"
              + " rails\\))"
              + "|entry \\d+\\.nodeSelector (is missing|is not an object)"
              + "|entry \\d+\\.nodeSelector\\..* is not a string"
              + "|entry \\d+\\.rails (is missing|is not an object)"
              + "|entry \\d+\\.rails\\..* is .*, not a rail number \\(0 or more\\))",
          Pattern.DOTALL);

  @FuzzTest(maxDuration = "60s")
  void refusesNamingTheFileOrMaps(byte[] input) throws IOException {
    Files.write(FILE, input);
    Rails.Assigned assigned;
    try {
      assigned = new NodeRails(FILE, () -> LABELS).apply(MACHINE);
    } catch (IllegalArgumentException e) {
      String m = e.getMessage();
      assertTrue(m.startsWith(SETTING + ": "), m);
      assertTrue(REFUSAL.matcher(m.substring(SETTING.length() + 2)).matches(), m);
      return;
    }
    notesNameNodeAndSetting(assigned);
    for (RailMap.Entry entry : RailMap.parse(Files.readString(FILE)).entries()) {
      notesNameNodeAndSetting(Rails.fromMapping(MACHINE, entry.rails(), SETTING));
    }
  }

  private static void notesNameNodeAndSetting(Rails.Assigned assigned) {
    for (String note : assigned.notes()) {
      assertTrue(note.startsWith("node hgx-h200: "), note);
      assertTrue(note.contains(SETTING), note);
    }
  }

  private static Path file() {
    try {
      Path f = Files.createTempFile("rails", ".json");
      f.toFile().deleteOnExit();
      return f;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
