package dev.tandem.simulator.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.simulator.policy.Policies;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SvgChartTest {

  private static final Pattern SVG = Pattern.compile("<svg width=\"(\\d+)\" height=\"(\\d+)\"");
  private static final Pattern LABEL =
      Pattern.compile("<text x=\"(\\d+)\" y=\"(\\d+)\" text-anchor=\"start\"[^>]*>([^<]*)</text>");

  @Test
  @DisplayName("every series of a line chart has its legend entry inside the picture, none overlap")
  void legendFits() {
    List<SvgChart.Series> series = new ArrayList<>();
    for (String name : Policies.NAMES) {
      series.add(new SvgChart.Series(name, new double[] {0, 10}, new double[] {3, 5}));
    }
    String svg = SvgChart.lines("t", series, "s", "pairs");
    Matcher size = SVG.matcher(svg);
    assertTrue(size.find());
    int width = Integer.parseInt(size.group(1));
    int height = Integer.parseInt(size.group(2));
    Matcher label = LABEL.matcher(svg);
    List<int[]> places = new ArrayList<>();
    List<String> names = new ArrayList<>();
    while (label.find()) {
      if (!label.group(3).equals("pairs")) {
        places.add(new int[] {Integer.parseInt(label.group(1)), Integer.parseInt(label.group(2))});
        names.add(label.group(3));
      }
    }
    assertEquals(series.stream().map(SvgChart.Series::name).toList(), names);
    for (int i = 0; i < places.size(); i++) {
      int[] p = places.get(i);
      // about 7 px per character at font-size 12
      assertTrue(p[0] + 7 * names.get(i).length() <= width, names.get(i) + " runs off the picture");
      assertTrue(p[1] < height, names.get(i) + " below the picture");
      for (int j = 0; j < i; j++) {
        int[] q = places.get(j);
        boolean sameRow = q[1] == p[1];
        assertTrue(
            !sameRow || q[0] + 16 + 7 * names.get(j).length() <= p[0],
            names.get(j) + " overlaps " + names.get(i));
      }
    }
  }
}
