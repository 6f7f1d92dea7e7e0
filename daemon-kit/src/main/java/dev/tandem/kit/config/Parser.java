package dev.tandem.kit.config;

/**
 * Turns a setting's text into its typed value. A bad text throws {@link IllegalArgumentException}
 * whose message is the problem only ("is not a whole number"); {@link Settings} adds the flag, the
 * environment variable and the value.
 *
 * @param <T> the value's type
 */
@FunctionalInterface
public interface Parser<T> {

  /**
   * Parses trimmed, non-empty text.
   *
   * @throws IllegalArgumentException saying what is wrong with it
   */
  T parse(String text);
}
