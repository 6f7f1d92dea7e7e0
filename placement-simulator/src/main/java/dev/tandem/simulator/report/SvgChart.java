package dev.tandem.simulator.report;

import java.util.List;
import java.util.Locale;

/** Small inline SVG charts: no script, no external resource, readable without a browser's help. */
final class SvgChart {

  static final String[] COLORS = {
    "#1b6ac9", "#e07b00", "#2a9d3c", "#c0392b", "#7d3c98", "#555", "#0a7e8c", "#a0522d", "#b8860b",
    "#d6336c"
  };
  private static final int WIDTH = 720;
  private static final int LEFT = 170;
  private static final int PLOT_HEIGHT = 250;
  private static final int LEGEND_COLUMNS = 3;
  private static final int LEGEND_WIDTH = (WIDTH - 80) / LEGEND_COLUMNS;

  private SvgChart() {}

  /**
   * A line of a line chart.
   *
   * @param name legend text
   * @param xs x values, ascending
   * @param ys y values
   */
  record Series(String name, double[] xs, double[] ys) {}

  /** Horizontal bars, one per label, values 0..max. */
  static String bars(String title, List<String> labels, List<Double> values, String unit) {
    double max = Math.max(1e-9, values.stream().mapToDouble(Double::doubleValue).max().orElse(1));
    int height = 40 + 28 * labels.size();
    StringBuilder s = open(title, height);
    for (int i = 0; i < labels.size(); i++) {
      int y = 30 + 28 * i;
      double w = (WIDTH - LEFT - 90) * values.get(i) / max;
      s.append(text(LEFT - 8, y + 15, "end", labels.get(i)))
          .append(
              f(
                  "<rect class=\"bar\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"20\" fill=\"%s\"/>",
                  LEFT, y, w, COLORS[i % COLORS.length]))
          .append(text((int) (LEFT + w + 6), y + 15, "start", f("%.1f %s", values.get(i), unit)));
    }
    return s.append("</svg>\n").toString();
  }

  /** Lines over a shared x axis (time), with a legend below, {@value #LEGEND_COLUMNS} a row. */
  static String lines(String title, List<Series> series, String xUnit, String yUnit) {
    int rows = (series.size() + LEGEND_COLUMNS - 1) / LEGEND_COLUMNS;
    int height = PLOT_HEIGHT + 18 * rows;
    int top = 30;
    int bottom = PLOT_HEIGHT - 40;
    double xMax = 1e-9;
    double yMax = 1e-9;
    for (Series ser : series) {
      for (double x : ser.xs()) {
        xMax = Math.max(xMax, x);
      }
      for (double y : ser.ys()) {
        yMax = Math.max(yMax, y);
      }
    }
    StringBuilder s = open(title, height);
    s.append(
            f(
                "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#999\"/>",
                60, bottom, WIDTH - 10, bottom))
        .append(f("<line x1=\"60\" y1=\"%d\" x2=\"60\" y2=\"%d\" stroke=\"#999\"/>", top, bottom))
        .append(text(56, top + 4, "end", f("%.0f", yMax)))
        .append(text(56, bottom, "end", "0"))
        .append(text(WIDTH - 10, bottom + 16, "end", f("%.0f %s", xMax, xUnit)))
        .append(text(64, top - 8, "start", yUnit));
    for (int k = 0; k < series.size(); k++) {
      Series ser = series.get(k);
      StringBuilder points = new StringBuilder();
      for (int i = 0; i < ser.xs().length; i++) {
        double x = 60 + (WIDTH - 70) * ser.xs()[i] / xMax;
        double y = bottom - (bottom - top) * ser.ys()[i] / yMax;
        points.append(f("%.1f,%.1f ", x, y));
      }
      String color = COLORS[k % COLORS.length];
      s.append(
              f(
                  "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\""
                      + " points=\"%s\"/>",
                  color, points.toString().trim()))
          .append(
              f(
                  "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"4\" fill=\"%s\"/>",
                  legendX(k), legendY(k) - 5, color))
          .append(text(legendX(k) + 16, legendY(k), "start", ser.name()));
    }
    return s.append("</svg>\n").toString();
  }

  private static int legendX(int k) {
    return 70 + LEGEND_WIDTH * (k % LEGEND_COLUMNS);
  }

  private static int legendY(int k) {
    return PLOT_HEIGHT + 18 * (k / LEGEND_COLUMNS);
  }

  private static StringBuilder open(String title, int height) {
    return new StringBuilder()
        .append(
            f(
                "<svg width=\"%d\" height=\"%d\"" + " role=\"img\" aria-label=\"%s\">",
                WIDTH, height, HtmlReport.escape(title)))
        .append(f("<title>%s</title>", HtmlReport.escape(title)));
  }

  private static String text(int x, int y, String anchor, String content) {
    return f(
        "<text x=\"%d\" y=\"%d\" text-anchor=\"%s\" font-size=\"12\">%s</text>",
        x, y, anchor, HtmlReport.escape(content));
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
