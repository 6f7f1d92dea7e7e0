package dev.tandem.simulator.report;

import dev.tandem.simulator.engine.GangFigure;
import dev.tandem.simulator.engine.PolicyResult;
import dev.tandem.simulator.engine.PolicyResult.Sample;
import dev.tandem.simulator.optimum.OptimumResult;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * The report as one self-contained HTML page: a table and inline SVG plots, no script, no font or
 * style sheet from elsewhere (clusters may be air-gapped).
 */
public final class HtmlReport {

  private static final String STYLE =
      "body{font-family:sans-serif;margin:2em;max-width:60em}"
          + "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.3em .6em;"
          + "text-align:right}td:first-child,th:first-child{text-align:left}"
          + ".partial{background:#fde2e2;padding:.5em}";

  private HtmlReport() {}

  public static String render(Report r) {
    StringBuilder s = new StringBuilder();
    s.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")
        .append("<title>Tandem placement simulation</title><style>")
        .append(STYLE)
        .append("</style></head><body>\n<h1>Tandem placement simulation</h1>\n");
    if (r.partial()) {
      s.append("<p class=\"partial\" id=\"partial\">").append(escape(r.message())).append("</p>\n");
    }
    s.append("<p>Cluster: ")
        .append(escape(r.cluster().toString()))
        .append(f(" (%d GPUs, %d HCAs). Workload: ", r.gpus(), r.hcas()))
        .append(escape(r.workload()))
        .append(f(", %d pods, maximum wait %.0f s.</p>\n", r.pods(), r.maxWaitSeconds()))
        .append("<p><code>")
        .append(escape(r.command()))
        .append("</code></p>\n")
        .append(table(r))
        .append(gangTable(r))
        .append("<h2>Pods placed aligned (% of the trace)</h2>\n")
        .append(SvgChart.bars("Pods placed aligned (% of the trace)", labels(r), percents(r), "%"))
        .append(series(r, "Aligned 1 GPU + 1 HCA pairs free over time", Sample::alignedSetsFree))
        .append(series(r, "Idle GPUs over time", Sample::idleGpus))
        .append("</body></html>\n");
    return s.toString();
  }

  private static String table(Report r) {
    StringBuilder s =
        new StringBuilder(
            "<table id=\"results\"><tr><th>Policy</th><th>Aligned</th><th>Aligned without wait"
                + "</th><th>Placed</th><th>Turned away</th><th>Waiting at end</th>"
                + "<th>Mean wait (s)</th><th>Idle GPUs</th><th>Idle HCAs</th>"
                + "<th>Aligned pairs free (mean)</th></tr>\n");
    for (PolicyResult p : r.results()) {
      s.append(
          f(
              "<tr><td title=\"%s\">%s</td><td>%d (%.1f %%)</td><td>%d</td><td>%d</td><td>%d</td>"
                  + "<td>%d</td><td>%.0f</td><td>%.1f %%</td><td>%.1f %%</td><td>%.1f</td></tr>\n",
              escape(p.description()),
              escape(p.policy()),
              p.aligned(),
              p.alignedPercent(),
              p.alignedWithoutWait(),
              p.placed(),
              p.turnedAway(),
              p.waitingAtEnd(),
              p.meanWaitSeconds(),
              100 * p.idleGpuShare(),
              100 * p.idleHcaShare(),
              p.meanAlignedSetsFree()));
    }
    OptimumResult o = r.optimum();
    if (o != null) {
      s.append(
          f(
              "<tr><td title=\"%s\">optimum (%s)</td><td>%s%d (%.1f %%)</td><td colspan=\"8\">"
                  + "%s</td></tr>\n",
              escape(o.note()),
              escape(o.method()),
              o.exact() ? "" : "≤ ",
              o.aligned(),
              o.alignedPercent(),
              escape(o.note())));
    }
    return s.append("</table>\n").toString();
  }

  /** The gangs' cross-rail figure, when the trace has gangs (docs/placement.md). */
  private static String gangTable(Report r) {
    if (r.results().stream().allMatch(p -> p.gangs() == null) && r.gangOptimum() == null) {
      return "";
    }
    StringBuilder s =
        new StringBuilder(
            "<h2>Gangs and rails</h2>\n<table id=\"gangs\"><tr><th>Policy</th><th>Gangs</th>"
                + "<th>Members placed</th><th>Gangs whole</th><th>Member pairs</th>"
                + "<th>Cross-rail pairs</th><th>Gangs split</th></tr>\n");
    for (PolicyResult p : r.results()) {
      if (p.gangs() != null) {
        s.append(gangRow(escape(p.policy()), p.gangs(), ""));
      }
    }
    if (r.gangOptimum() != null) {
      s.append(gangRow("optimum (lower bound)", r.gangOptimum(), "≥ "));
    }
    return s.append("</table>\n").toString();
  }

  private static String gangRow(String name, GangFigure g, String bound) {
    return f(
        "<tr><td>%s</td><td>%d</td><td>%d</td><td>%d</td><td>%d</td><td>%s%d</td>"
            + "<td>%s%d (%.1f %%)</td></tr>\n",
        name,
        g.gangs(),
        g.membersPlaced(),
        g.gangsWhole(),
        g.memberPairs(),
        bound,
        g.crossRailPairs(),
        bound,
        g.gangsSplit(),
        100 * g.splitShare());
  }

  private static List<String> labels(Report r) {
    List<String> out = new ArrayList<>(r.results().stream().map(PolicyResult::policy).toList());
    if (r.optimum() != null) {
      out.add("optimum" + (r.optimum().exact() ? "" : " (bound)"));
    }
    return out;
  }

  private static List<Double> percents(Report r) {
    List<Double> out =
        new ArrayList<>(r.results().stream().map(PolicyResult::alignedPercent).toList());
    if (r.optimum() != null) {
      out.add(r.optimum().alignedPercent());
    }
    return out;
  }

  private static String series(Report r, String title, ToDoubleFunction<Sample> value) {
    List<SvgChart.Series> out = new ArrayList<>();
    for (PolicyResult p : r.results()) {
      double[] xs = p.samples().stream().mapToDouble(Sample::time).toArray();
      double[] ys = p.samples().stream().mapToDouble(value).toArray();
      out.add(new SvgChart.Series(p.policy(), xs, ys));
    }
    return "<h2>"
        + escape(title)
        + "</h2>\n"
        + SvgChart.lines(title, out, "s", title.startsWith("Idle") ? "GPUs" : "pairs");
  }

  static String escape(String text) {
    return text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace("\"", "&quot;");
  }

  private static String f(String format, Object... args) {
    return String.format(Locale.ROOT, format, args);
  }
}
