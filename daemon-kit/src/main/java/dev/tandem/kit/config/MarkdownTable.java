package dev.tandem.kit.config;

import java.util.ArrayList;
import java.util.List;

/** Renders the docs' table of a daemon's settings from the declarations. */
final class MarkdownTable {

  private MarkdownTable() {}

  static String render(List<Setting<?>> settings) {
    boolean keys = settings.stream().anyMatch(s -> s.fileKey() != null);
    List<String> head = new ArrayList<>(List.of("Flag", "Environment variable"));
    if (keys) {
      head.add("File key");
    }
    head.addAll(List.of("Default", "Meaning"));
    StringBuilder b = new StringBuilder(row(head));
    b.append(row(head.stream().map(h -> "---").toList()));
    for (Setting<?> s : settings) {
      List<String> cells = new ArrayList<>();
      cells.add(code(s.synopsis()));
      cells.add(s.env() == null ? "—" : code(s.env()));
      if (keys) {
        cells.add(s.fileKey() == null ? "—" : code(s.fileKey()));
      }
      cells.add(defaultCell(s));
      cells.add(s.help().replace("|", "\\|"));
      b.append(row(cells));
    }
    return b.toString();
  }

  private static String defaultCell(Setting<?> s) {
    if (s.required()) {
      return "required";
    }
    if (s.defaultText() != null) {
      return s.defaultText();
    }
    return s.defaultValue() == null ? "none" : code(s.defaultValue());
  }

  private static String code(String text) {
    return "`" + text + "`";
  }

  private static String row(List<String> cells) {
    return "| " + String.join(" | ", cells) + " |\n";
  }
}
