package dev.tandem.extender.ui;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName("/ui assets are self-contained (the cluster may be air-gapped)")
class TopologyPageAssetsTest {

  /** Any absolute or protocol-relative URL, or a CSS/JS import of one. */
  private static final Pattern EXTERNAL =
      Pattern.compile("(?i)(https?:)?//[a-z0-9.-]+\\.[a-z]{2,}|@import|fonts\\.googleapis|cdn");

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"index.html", "app.js", "style.css"})
  @DisplayName("references nothing outside the extender")
  void noExternalReferences(String file) throws IOException {
    String text = read(file);
    Matcher m = EXTERNAL.matcher(text);
    assertTrue(
        !m.find(),
        () ->
            "webroot/ui/"
                + file
                + " refers to something outside the extender: '"
                + m.group()
                + "'");
  }

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"app.js", "style.css"})
  @DisplayName("index.html loads its script and stylesheet by relative path")
  void indexLoadsRelativeAssets(String file) throws IOException {
    String index = read("index.html");
    assertTrue(
        List.of("src=\"" + file + "\"", "href=\"" + file + "\"").stream().anyMatch(index::contains),
        "index.html loads " + file + " relative to /ui/");
  }

  private static String read(String file) throws IOException {
    try (InputStream in = TopologyPageAssetsTest.class.getResourceAsStream("/webroot/ui/" + file)) {
      assertNotNull(in, "webroot/ui/" + file + " is on the classpath");
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
