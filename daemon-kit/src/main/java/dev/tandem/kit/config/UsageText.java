package dev.tandem.kit.config;

import java.util.List;

/** Renders {@code --help} from the declarations. */
final class UsageText {

  private UsageText() {}

  static String render(String intro, List<Setting<?>> settings) {
    int width = settings.stream().mapToInt(s -> s.synopsis().length()).max().orElse(0) + 2;
    StringBuilder b = new StringBuilder(intro.endsWith("\n") ? intro : intro + "\n");
    b.append('\n');
    for (Setting<?> s : settings) {
      b.append("  ").append(pad(s.synopsis(), width)).append(s.help().replace("`", ""));
      String dflt = s.describedDefault();
      if (s.required()) {
        b.append(" (required)");
      } else if (dflt != null) {
        b.append(" (default ").append(dflt.replace("`", "")).append(')');
      }
      b.append(sources(s)).append('\n');
    }
    b.append("  ").append(pad("--help", width)).append("this text\n");
    return b.toString();
  }

  private static String sources(Setting<?> s) {
    if (s.env() == null && s.fileKey() == null) {
      return "";
    }
    if (s.fileKey() == null) {
      return " [" + s.env() + "]";
    }
    return s.env() == null
        ? " [file: " + s.fileKey() + "]"
        : " [" + s.env() + ", file: " + s.fileKey() + "]";
  }

  private static String pad(String text, int width) {
    return text.length() >= width ? text + " " : text + " ".repeat(width - text.length());
  }
}
