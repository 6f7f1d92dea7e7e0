package dev.tandem.kit.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The settings of one daemon (or command), the rules between them, and where its configuration file
 * is named. {@link #resolve} folds flags over environment over file over defaults; {@link #usage}
 * and {@link #markdownTable} are generated from the same declarations.
 *
 * <p>Only a daemon's {@code main} passes {@code System.getenv()}; everything else passes a map.
 */
public final class Settings {

  private static final String FROM_ENV = "from the environment";

  private final String intro;
  private final List<Setting<?>> settings;
  private final List<Rule> rules;
  private final Setting<Path> configFile;
  private final Setting<Path> configFallback;

  private Settings(
      String intro,
      List<Setting<?>> settings,
      List<Rule> rules,
      Setting<Path> configFile,
      Setting<Path> configFallback) {
    this.intro = intro;
    this.settings = List.copyOf(settings);
    this.rules = List.copyOf(rules);
    this.configFile = configFile;
    this.configFallback = configFallback;
  }

  /**
   * The settings, in the order usage lists them.
   *
   * @param intro the usage text before the flag list (synopsis and a paragraph)
   */
  public static Settings of(String intro, List<Setting<?>> settings) {
    Set<String> flags = new TreeSet<>();
    for (Setting<?> s : settings) {
      if (!flags.add(s.flag())) {
        throw new IllegalArgumentException("flag declared twice: " + s.flag());
      }
    }
    return new Settings(intro, settings, List.of(), null, null);
  }

  /** These settings with {@code more} rules. */
  public Settings rules(Rule... more) {
    List<Rule> all = new ArrayList<>(rules);
    all.addAll(List.of(more));
    return new Settings(intro, settings, all, configFile, configFallback);
  }

  /** These settings, whose file keys are read from the file {@code setting} names. */
  public Settings configFile(Setting<Path> setting) {
    return new Settings(intro, settings, rules, member(setting), null);
  }

  /**
   * These settings, whose file keys are read from the file {@code setting} names or, when nothing
   * names one, from the file {@code fallback} names if that file exists (a path another program's
   * deployment already mounts its configuration at).
   */
  public Settings configFile(Setting<Path> setting, Setting<Path> fallback) {
    return new Settings(intro, settings, rules, member(setting), member(fallback));
  }

  private Setting<Path> member(Setting<Path> setting) {
    if (!settings.contains(setting)) {
      throw new IllegalArgumentException(setting.flag() + " is not one of these settings");
    }
    return setting;
  }

  public List<Setting<?>> all() {
    return settings;
  }

  /** Whether the arguments ask for help ({@code --help} or {@code -h} anywhere). */
  public static boolean wantsHelp(List<String> args) {
    return args.contains("--help") || args.contains("-h");
  }

  /** Resolves without a configuration file. */
  public Resolved resolve(List<String> args, Map<String, String> env) {
    return resolve(args, env, FileLoader.NONE);
  }

  /**
   * Folds flags over environment over file over defaults, checks required settings and rules, and
   * parses every value.
   *
   * @throws InvalidConfigurationException naming the flag, the variable and the value
   */
  public Resolved resolve(List<String> args, Map<String, String> env, FileLoader loader) {
    Map<Setting<?>, String> flags = CommandLine.parse(args, settings);
    Map<Source, String> where = new EnumMap<>(Source.class);
    where.put(Source.ENVIRONMENT, FROM_ENV);
    Map<String, String> file = Map.of();
    Path path = configPath(flags, env);
    if (path != null) {
      file = loader.load(path);
      where.put(Source.FILE, "from " + path);
      rejectUnknownKeys(file, path);
    }
    Resolved r = new Resolved(where, path);
    for (Setting<?> s : settings) {
      put(r, s, flags, env, file);
    }
    for (Rule rule : rules) {
      String violation = rule.violation(r);
      if (violation != null) {
        throw new InvalidConfigurationException(violation);
      }
    }
    r.parseAll();
    return r;
  }

  private static void put(
      Resolved r,
      Setting<?> s,
      Map<Setting<?>, String> flags,
      Map<String, String> env,
      Map<String, String> file) {
    String text;
    if ((text = blankless(flags.get(s))) != null) {
      r.put(s, text, Source.FLAG);
    } else if (s.env() != null && (text = blankless(env.get(s.env()))) != null) {
      r.put(s, text, Source.ENVIRONMENT);
    } else if (s.fileKey() != null && (text = blankless(file.get(s.fileKey()))) != null) {
      r.put(s, text, Source.FILE);
    } else if (s.required()) {
      throw new InvalidConfigurationException(s.names() + " is required: " + s.help());
    } else {
      r.put(s, blankless(s.defaultValue()), Source.DEFAULT);
    }
  }

  private Path configPath(Map<Setting<?>, String> flags, Map<String, String> env) {
    Path named = early(configFile, flags, env);
    if (named != null) {
      return named;
    }
    Path fallback = early(configFallback, flags, env);
    return fallback != null && Files.exists(fallback) ? fallback : null;
  }

  /** A setting's value before the file is read (flag, environment, default). */
  private static Path early(
      Setting<Path> setting, Map<Setting<?>, String> flags, Map<String, String> env) {
    if (setting == null) {
      return null;
    }
    Resolved r = new Resolved(Map.of(Source.ENVIRONMENT, FROM_ENV), null);
    put(r, setting, flags, env, Map.of());
    r.parseAll();
    return r.get(setting);
  }

  private void rejectUnknownKeys(Map<String, String> file, Path path) {
    Set<String> known = new TreeSet<>();
    settings.stream().map(Setting::fileKey).filter(Objects::nonNull).forEach(known::add);
    Set<String> unknown = new TreeSet<>(file.keySet());
    unknown.removeAll(known);
    if (!unknown.isEmpty()) {
      throw new InvalidConfigurationException(
          path
              + ": unknown key"
              + (unknown.size() == 1 ? " " : "s ")
              + String.join(", ", unknown)
              + "; known: "
              + String.join(", ", known));
    }
  }

  private static String blankless(String text) {
    return text == null || text.isBlank() ? null : text.trim();
  }

  /** The {@code --help} text: the intro, then one line per flag. */
  public String usage() {
    return UsageText.render(intro, settings);
  }

  /**
   * The Markdown table docs/configuration.md carries for these settings: flag, environment
   * variable, file key (when there is a file), default, meaning.
   */
  public String markdownTable() {
    return MarkdownTable.render(settings);
  }
}
