package dev.tandem.kit.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One setting of a daemon, declared once: its flag, environment variable, configuration-file key,
 * parser, default and help. Build it with {@link #of} (or {@link #toggle}) and the {@code
 * with}-style methods; collect the settings of a daemon in {@link Settings}.
 *
 * @param flag the command-line flag, e.g. {@code --resync}
 * @param metavar what the flag's value is in usage, e.g. {@code SECONDS}; empty for a switch
 * @param env the environment variable, or null
 * @param fileKey the configuration file's key, or null
 * @param parser turns the text into the typed value
 * @param defaultValue the default as text (parsed like any value), or null
 * @param defaultText how usage and docs describe the default when it is not {@code defaultValue}
 *     (e.g. "this machine"), or null
 * @param help what the setting does, one line
 * @param required whether a value must be given
 * @param switchValue for a flag given without a value ({@code --demo}): the value it stands for;
 *     null for flags that take a value
 * @param secret whether the start-up log hides the value
 * @param <T> the value's type
 */
public record Setting<T>(
    String flag,
    String metavar,
    String env,
    String fileKey,
    Parser<T> parser,
    String defaultValue,
    String defaultText,
    String help,
    boolean required,
    String switchValue,
    boolean secret) {

  public Setting {
    Objects.requireNonNull(flag, "flag");
    Objects.requireNonNull(parser, "parser");
    if (!flag.startsWith("--")) {
      throw new IllegalArgumentException("a flag starts with --: " + flag);
    }
  }

  /** A flag taking a value described as {@code metavar} in usage. */
  public static <T> Setting<T> of(String flag, String metavar, Parser<T> parser) {
    return new Setting<>(flag, metavar, null, null, parser, null, null, "", false, null, false);
  }

  /** A flag without a value ({@code --no-kube}) that stands for {@code value}. */
  public static Setting<Boolean> toggle(String flag, boolean value) {
    return new Setting<>(
        flag, "", null, null, Parsers.bool(), null, null, "", false, String.valueOf(value), false);
  }

  public Setting<T> env(String name) {
    return new Setting<>(
        flag,
        metavar,
        name,
        fileKey,
        parser,
        defaultValue,
        defaultText,
        help,
        required,
        switchValue,
        secret);
  }

  public Setting<T> fileKey(String key) {
    return new Setting<>(
        flag,
        metavar,
        env,
        key,
        parser,
        defaultValue,
        defaultText,
        help,
        required,
        switchValue,
        secret);
  }

  public Setting<T> defaultValue(String value) {
    return new Setting<>(
        flag,
        metavar,
        env,
        fileKey,
        parser,
        value,
        defaultText,
        help,
        required,
        switchValue,
        secret);
  }

  /** Describes a default the daemon computes (or the absence of a value) in usage and docs. */
  public Setting<T> defaultText(String text) {
    return new Setting<>(
        flag,
        metavar,
        env,
        fileKey,
        parser,
        defaultValue,
        text,
        help,
        required,
        switchValue,
        secret);
  }

  public Setting<T> help(String text) {
    return new Setting<>(
        flag,
        metavar,
        env,
        fileKey,
        parser,
        defaultValue,
        defaultText,
        text,
        required,
        switchValue,
        secret);
  }

  public Setting<T> asRequired() {
    return new Setting<>(
        flag,
        metavar,
        env,
        fileKey,
        parser,
        defaultValue,
        defaultText,
        help,
        true,
        switchValue,
        secret);
  }

  public Setting<T> asSecret() {
    return new Setting<>(
        flag,
        metavar,
        env,
        fileKey,
        parser,
        defaultValue,
        defaultText,
        help,
        required,
        switchValue,
        true);
  }

  /** Whether the flag takes no value. */
  public boolean isSwitch() {
    return switchValue != null;
  }

  /**
   * The setting's text for a switch given as {@code --flag=true|false}: the value tells whether the
   * flag's meaning holds, so {@code --no-kube=true} is {@code --no-kube} and {@code
   * --no-leader-election=true} turns leader election off, as {@code --no-leader-election} does. A
   * value that is neither stays as given, for the setting's parser to refuse as any bad value.
   */
  String switched(String given) {
    if (given.equalsIgnoreCase("true")) {
      return switchValue;
    }
    if (given.equalsIgnoreCase("false")) {
      return String.valueOf(!Boolean.parseBoolean(switchValue));
    }
    return given;
  }

  /** The setting's text as its switch reads: whether {@code --flag} holds for this value. */
  String asSwitch(String text) {
    return String.valueOf(text.equalsIgnoreCase(switchValue));
  }

  /**
   * How messages name the setting: {@code --resync (TANDEM_RESYNC_SECONDS)}, {@code --port
   * (TANDEM_EXTENDER_PORT, file key port)}.
   */
  public String names() {
    List<String> other = new ArrayList<>();
    if (env != null) {
      other.add(env);
    }
    if (fileKey != null) {
      other.add("file key " + fileKey);
    }
    return other.isEmpty() ? flag : flag + " (" + String.join(", ", other) + ")";
  }

  /** The flag as usage shows it: {@code --resync SECONDS}. */
  public String synopsis() {
    return metavar == null || metavar.isEmpty() ? flag : flag + " " + metavar;
  }

  /** The default as usage and docs describe it, or null when there is none to tell. */
  public String describedDefault() {
    return defaultText != null ? defaultText : defaultValue;
  }
}
