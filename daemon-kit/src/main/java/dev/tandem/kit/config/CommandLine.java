package dev.tandem.kit.config;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Splits {@code --flag value}, {@code --flag=value} and switches into texts by setting. */
final class CommandLine {

  private CommandLine() {}

  static Map<Setting<?>, String> parse(List<String> args, List<Setting<?>> settings) {
    Map<Setting<?>, String> out = new LinkedHashMap<>();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      int eq = arg.indexOf('=');
      boolean inline = arg.startsWith("--") && eq > 0;
      String name = inline ? arg.substring(0, eq) : arg;
      Setting<?> s = find(settings, name);
      if (inline && s.isSwitch()) {
        out.put(s, s.switched(arg.substring(eq + 1)));
      } else if (inline) {
        out.put(s, arg.substring(eq + 1));
      } else if (s.isSwitch()) {
        out.put(s, s.switchValue());
      } else if (i + 1 < args.size() && !args.get(i + 1).startsWith("--")) {
        out.put(s, args.get(++i));
      } else {
        throw new InvalidConfigurationException(name + " needs a value (see --help)");
      }
    }
    return out;
  }

  private static Setting<?> find(List<Setting<?>> settings, String flag) {
    for (Setting<?> s : settings) {
      if (s.flag().equals(flag)) {
        return s;
      }
    }
    throw new InvalidConfigurationException("unknown flag '" + flag + "' (see --help)");
  }
}
