package dev.tandem.kit.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("parsers: valid and invalid texts")
class ParsersTest {

  enum Alignment {
    SWITCH,
    ROOT_COMPLEX
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"90s, PT1M30S", "5m, PT5M", "2h, PT2H", "500ms, PT0.5S", "PT5M, PT5M", "42, PT42S"})
  @DisplayName("durations with units, ISO or plain seconds")
  void durations(String text, String iso) {
    assertEquals(Duration.parse(iso), Parsers.duration().parse(text));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"1048576, 1048576", "64Mi, 67108864", "2Ki, 2048", "3k, 3000", "1M, 1000000"})
  @DisplayName("byte counts with units")
  void bytes(String text, long value) {
    assertEquals(value, Parsers.bytes().parse(text));
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(
      delimiter = '|',
      value = {
        "int| abc| is not a whole number",
        "int| 11| is out of range 1..10",
        "duration| soon| is not a duration (e.g. 90s, 5m, PT5M)",
        "bytes| lots| is not a byte count (e.g. 1048576, 64Mi)",
        "bool| yes| is not true or false",
        "enum| rack| is not one of switch, root-complex",
        "oneOf| xml| is not one of json, yaml",
        "file| /nonexistent| is not a readable file",
        "dir| /nonexistent| is not a directory"
      })
  @DisplayName("invalid texts say what is wrong")
  void invalid(String parser, String text, String problem) {
    Parser<?> p =
        switch (parser) {
          case "int" -> Parsers.intRange(1, 10);
          case "duration" -> Parsers.duration();
          case "bytes" -> Parsers.bytes();
          case "bool" -> Parsers.bool();
          case "enum" -> Parsers.enumOf(Alignment.class);
          case "oneOf" -> Parsers.oneOf("json", "yaml");
          case "file" -> Parsers.existingFile();
          default -> Parsers.existingDirectory();
        };
    assertEquals(
        problem, assertThrows(IllegalArgumentException.class, () -> p.parse(text)).getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"root-complex, ROOT_COMPLEX", "SWITCH, SWITCH"})
  @DisplayName("enums by their lower-case, dashed names")
  void enums(String text, Alignment value) {
    assertEquals(value, Parsers.enumOf(Alignment.class).parse(text));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"/, /", "/tmp, /tmp"})
  @DisplayName("directories that exist")
  void directories(String text, Path value) {
    assertEquals(value, Parsers.existingDirectory().parse(text));
  }
}
