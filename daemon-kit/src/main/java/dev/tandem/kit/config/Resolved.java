package dev.tandem.kit.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The values of a daemon's settings after flags, environment, file and defaults were folded in that
 * order of strength, and parsed. Each daemon builds its typed configuration record from it.
 *
 * <p>A setting is looked up by its flag, which a table holds once ({@link Settings#of}): a table
 * may list a variant of a shared declaration ({@code NodeSettings.NODE_NAME.asRequired()}) and code
 * that reads the shared one ({@code get(NodeSettings.NODE_NAME)}) gets that table's value.
 */
public final class Resolved {

  /** A setting as the table declares it, its text, where it came from, and the parsed value. */
  private record Entry(Setting<?> setting, String text, Source source, Object value) {}

  /** By flag. */
  private final Map<String, Entry> entries = new LinkedHashMap<>();

  private final Map<Source, String> where;
  private final Path file;

  /**
   * @param where how error messages say where a value came from, by source
   * @param file the configuration file read, or null
   */
  Resolved(Map<Source, String> where, Path file) {
    this.where = Map.copyOf(where);
    this.file = file;
  }

  /**
   * The configuration file whose keys were read: the one its setting names, else the fallback that
   * exists ({@link Settings#configFile(Setting, Setting)}); null when none was.
   */
  public Path file() {
    return file;
  }

  void put(Setting<?> setting, String text, Source source) {
    entries.put(setting.flag(), new Entry(setting, text, source, null));
  }

  /** Parses every value; the first bad one throws naming its flag, variable and value. */
  void parseAll() {
    entries.replaceAll(
        (flag, e) -> e.text() == null ? e : new Entry(e.setting(), e.text(), e.source(), parse(e)));
  }

  private Object parse(Entry e) {
    Setting<?> s = e.setting();
    try {
      return s.parser().parse(e.text());
    } catch (IllegalArgumentException ex) {
      String from = where.get(e.source());
      throw new InvalidConfigurationException(
          s.names()
              + ": '"
              + e.text()
              + "' "
              + ex.getMessage()
              + (from == null ? "" : " (" + from + ")"));
    }
  }

  /** The value, or null when nothing set it and it has no default. */
  @SuppressWarnings("unchecked")
  public <T> T get(Setting<T> setting) {
    Entry e = entries.get(setting.flag());
    if (e == null) {
      throw new IllegalArgumentException(setting.flag() + " is not one of these settings");
    }
    return e.text() == null ? null : (T) (e.value() != null ? e.value() : parse(e));
  }

  /** The value, or {@code fallback} when nothing set it and it has no default. */
  public <T> T get(Setting<T> setting, T fallback) {
    T value = get(setting);
    return value == null ? fallback : value;
  }

  /** Where the value came from; {@link Source#DEFAULT} also when there is none. */
  public Source source(Setting<?> setting) {
    Entry e = entries.get(setting.flag());
    return e == null ? Source.DEFAULT : e.source();
  }

  /**
   * Set by a flag, the environment or the file, and not to {@code false}; decided on the text, so
   * that rules are checked before values are (a rule's message is the more useful one).
   */
  public boolean isGiven(Setting<?> setting) {
    Entry e = entries.get(setting.flag());
    return e != null
        && e.source() != Source.DEFAULT
        && e.text() != null
        && !e.text().equalsIgnoreCase("false");
  }

  /**
   * One line for the start-up log: every setting that has a value, with where it came from when it
   * is not the default; secrets are masked. A switch reads as its flag does: {@code
   * --no-leader-election=false} while leader election is on.
   */
  public String describe() {
    return entries.values().stream()
        .filter(e -> e.text() != null)
        .map(e -> e.setting().flag() + "=" + shown(e) + origin(e.setting(), e.source()))
        .collect(Collectors.joining(", "));
  }

  private static String shown(Entry e) {
    Setting<?> s = e.setting();
    if (s.secret()) {
      return "***";
    }
    return s.isSwitch() ? s.asSwitch(e.text()) : e.text();
  }

  private static String origin(Setting<?> s, Source source) {
    return switch (source) {
      case FLAG -> " (flag)";
      case ENVIRONMENT -> " (" + s.env() + ")";
      case FILE -> " (file key " + s.fileKey() + ")";
      case DEFAULT -> "";
    };
  }
}
