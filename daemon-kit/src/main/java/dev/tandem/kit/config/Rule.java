package dev.tandem.kit.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * Settings that make no sense together, declared next to the settings. A setting counts as given
 * when a flag, the environment or the file sets it (a {@code Boolean} only when it is true).
 */
@FunctionalInterface
public interface Rule {

  /** What is wrong with {@code values}, naming every setting involved, or null when nothing is. */
  String violation(Resolved values);

  /** {@code setting} needs {@code needed}: {@code --demo-topologies} needs {@code --demo}. */
  static Rule requires(Setting<?> setting, Setting<?> needed) {
    return v ->
        v.isGiven(setting) && !v.isGiven(needed)
            ? setting.names() + " needs " + needed.names() + "; give both or neither"
            : null;
  }

  /** At most one of {@code settings}: the agent's discovery sources. */
  static Rule atMostOne(Setting<?>... settings) {
    List<Setting<?>> all = List.of(settings);
    return v -> {
      List<Setting<?>> given = all.stream().filter(v::isGiven).toList();
      return given.size() < 2
          ? null
          : "give at most one of "
              + names(all)
              + " (got "
              + given.stream().map(Setting::flag).collect(Collectors.joining(" and "))
              + ")";
    };
  }

  /** Both or neither: a TLS certificate and its key. */
  static Rule together(Setting<?> a, Setting<?> b) {
    return v ->
        v.isGiven(a) != v.isGiven(b)
            ? names(List.of(a, b))
                + " go together: give both or neither (got only "
                + (v.isGiven(a) ? a.flag() : b.flag())
                + ")"
            : null;
  }

  private static String names(List<Setting<?>> settings) {
    return settings.stream().map(Setting::names).collect(Collectors.joining(", "));
  }
}
