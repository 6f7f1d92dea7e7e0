package dev.tandem.extender.manifests;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Pieces of the repository's Markdown docs and of sources outside this module, as text. */
final class DocText {

  static final Path REPO = ManifestFiles.ROOT.getParent();

  private DocText() {}

  static String read(String relative) {
    try {
      return Files.readString(REPO.resolve(relative));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * The text from the heading line {@code heading} to the next heading of the same or a higher
   * level.
   */
  static String section(String markdown, String heading) {
    int start = markdown.indexOf("\n" + heading + "\n");
    if (start < 0) {
      throw new AssertionError("no section '" + heading + "'");
    }
    String level = heading.substring(0, heading.indexOf(' ') + 1);
    Matcher next = Pattern.compile("\n#{1," + (level.length() - 1) + "} ").matcher(markdown);
    int end = next.find(start + heading.length() + 1) ? next.start() : markdown.length();
    return markdown.substring(start, end);
  }

  /** The first group of {@code pattern} in the first cell of each table row of {@code text}. */
  static Set<String> firstColumn(String text, Pattern pattern) {
    Set<String> out = new TreeSet<>();
    for (String line : text.split("\n")) {
      if (!line.startsWith("| ") || line.startsWith("|--") || line.startsWith("| ---")) {
        continue;
      }
      Matcher m = pattern.matcher(line.split("\\|")[1]);
      while (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }

  /** Every match (group 1) of {@code pattern} in {@code text}. */
  static Set<String> all(String text, Pattern pattern) {
    Set<String> out = new TreeSet<>();
    Matcher m = pattern.matcher(text);
    while (m.find()) {
      out.add(m.group(1));
    }
    return out;
  }

  /** The content of the Java text block assigned to {@code name} in a source file. */
  static String textBlock(String source, String name) {
    Matcher m = Pattern.compile(Pattern.quote(name) + "\\s*=\\s*\"\"\"").matcher(source);
    int end = m.find() ? source.indexOf("\"\"\";", m.end()) : -1;
    if (end < 0) {
      throw new AssertionError("no text block " + name);
    }
    return source.substring(m.start(), end);
  }
}
