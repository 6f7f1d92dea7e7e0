package dev.tandem.simulator.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

/** The report as pretty-printed JSON (record components as fields). */
public final class ReportJson {

  private ReportJson() {}

  public static String write(Report report) {
    try {
      return new ObjectMapper()
              .enable(SerializationFeature.INDENT_OUTPUT)
              .writeValueAsString(report)
          + "\n";
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot write the report as JSON: " + e.getMessage(), e);
    }
  }
}
