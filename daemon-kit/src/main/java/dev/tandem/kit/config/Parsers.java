package dev.tandem.kit.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.stream.Collectors;

/** The typed parsers settings are declared with; each failure message is the problem only. */
public final class Parsers {

  private Parsers() {}

  /** Any text. */
  public static Parser<String> text() {
    return text -> text;
  }

  /** A whole number in {@code min..max}. */
  public static Parser<Integer> intRange(int min, int max) {
    return text -> (int) whole(text, min, max);
  }

  /** A whole number in {@code min..max}. */
  public static Parser<Long> longRange(long min, long max) {
    return text -> whole(text, min, max);
  }

  /** A whole number of seconds in {@code min..max}. */
  public static Parser<Duration> seconds(long min, long max) {
    return text -> Duration.ofSeconds(whole(text, min, max));
  }

  /** A path, not checked. */
  public static Parser<Path> path() {
    return Path::of;
  }

  /** A path to a regular file that exists. */
  public static Parser<Path> existingFile() {
    return text -> {
      Path p = Path.of(text);
      if (!Files.isRegularFile(p)) {
        throw new IllegalArgumentException("is not a readable file");
      }
      return p;
    };
  }

  /** A path to a directory that exists. */
  public static Parser<Path> existingDirectory() {
    return text -> {
      Path p = Path.of(text);
      if (!Files.isDirectory(p)) {
        throw new IllegalArgumentException("is not a directory");
      }
      return p;
    };
  }

  /** {@code true} or {@code false}, in any case. */
  public static Parser<Boolean> bool() {
    return text -> {
      String t = text.toLowerCase(Locale.ROOT);
      if (!t.equals("true") && !t.equals("false")) {
        throw new IllegalArgumentException("is not true or false");
      }
      return Boolean.parseBoolean(t);
    };
  }

  /** One of {@code allowed}, exactly. */
  public static Parser<String> oneOf(String... allowed) {
    List<String> values = List.of(allowed);
    return text -> {
      if (!values.contains(text)) {
        throw new IllegalArgumentException("is not one of " + String.join(", ", values));
      }
      return text;
    };
  }

  /**
   * A constant of {@code type}, named in lower case with dashes ({@code ROOT_COMPLEX}:
   * root-complex).
   */
  public static <E extends Enum<E>> Parser<E> enumOf(Class<E> type) {
    Function<E, String> name = e -> e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    return text -> {
      for (E e : type.getEnumConstants()) {
        if (name.apply(e).equals(text.toLowerCase(Locale.ROOT))) {
          return e;
        }
      }
      throw new IllegalArgumentException(
          "is not one of "
              + Arrays.stream(type.getEnumConstants()).map(name).collect(Collectors.joining(", ")));
    };
  }

  /**
   * A duration: {@code 90s}, {@code 10m}, {@code 2h}, {@code 500ms}, ISO {@code PT5M}, or seconds.
   */
  public static Parser<Duration> duration() {
    return text -> {
      String t = text.toLowerCase(Locale.ROOT);
      try {
        if (t.startsWith("pt")) {
          return Duration.parse(t.toUpperCase(Locale.ROOT));
        }
        long n = Long.parseLong(t.replaceAll("(ms|s|m|h)$", ""));
        return t.endsWith("ms")
            ? Duration.ofMillis(n)
            : t.endsWith("m")
                ? Duration.ofMinutes(n)
                : t.endsWith("h") ? Duration.ofHours(n) : Duration.ofSeconds(n);
      } catch (NumberFormatException | DateTimeParseException e) {
        throw new IllegalArgumentException("is not a duration (e.g. 90s, 5m, PT5M)");
      }
    };
  }

  /** A byte count, optionally with a unit: {@code Ki}, {@code Mi}, {@code k}, {@code M}. */
  public static Parser<Long> bytes() {
    return text -> {
      long factor = 1;
      String t = text;
      for (String[] unit :
          new String[][] {{"Ki", "1024"}, {"Mi", "1048576"}, {"k", "1000"}, {"M", "1000000"}}) {
        if (t.endsWith(unit[0])) {
          factor = Long.parseLong(unit[1]);
          t = t.substring(0, t.length() - unit[0].length()).trim();
          break;
        }
      }
      try {
        return Math.multiplyExact(Long.parseLong(t), factor);
      } catch (NumberFormatException | ArithmeticException e) {
        throw new IllegalArgumentException("is not a byte count (e.g. 1048576, 64Mi)");
      }
    };
  }

  private static long whole(String text, long min, long max) {
    long n;
    try {
      n = Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("is not a whole number");
    }
    if (n < min || n > max) {
      throw new IllegalArgumentException("is out of range " + min + ".." + max);
    }
    return n;
  }
}
