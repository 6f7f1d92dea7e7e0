package dev.tandem.simulator.workload;

import java.util.ArrayList;
import java.util.List;

/**
 * A pod shape with its share of a generated workload.
 *
 * @param gpus GPUs per pod
 * @param hcas HCA units per pod
 * @param weight relative frequency
 */
public record Shape(int gpus, int hcas, double weight) {

  public Shape {
    if (gpus < 0 || hcas < 0 || gpus + hcas == 0 || weight <= 0) {
      throw new IllegalArgumentException(
          "a shape needs GPUs or HCAs (not negative) and a positive weight, got "
              + gpus
              + "+"
              + hcas
              + ":"
              + weight);
    }
  }

  /**
   * Parses {@code G+H:WEIGHT} items separated by commas, e.g. {@code 1+1:4,2+2:3,4+4:2,8+8:1}.
   *
   * @throws IllegalArgumentException naming the item that does not parse
   */
  public static List<Shape> parseMix(String text) {
    List<Shape> out = new ArrayList<>();
    for (String item : text.split(",")) {
      out.add(parse(item.trim()));
    }
    return List.copyOf(out);
  }

  /** As {@link #parseMix} reads it, e.g. {@code 2+2:3}. */
  public String text() {
    String w = weight == Math.rint(weight) ? String.valueOf((long) weight) : String.valueOf(weight);
    return gpus + "+" + hcas + ":" + w;
  }

  private static Shape parse(String item) {
    String[] weighted = item.split(":");
    String[] counts = weighted[0].split("\\+");
    try {
      if (counts.length != 2 || weighted.length > 2) {
        throw new NumberFormatException();
      }
      double weight = weighted.length == 2 ? Double.parseDouble(weighted[1]) : 1;
      return new Shape(
          Integer.parseInt(counts[0].trim()), Integer.parseInt(counts[1].trim()), weight);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "shape '" + item + "' is not GPUS+HCAS[:WEIGHT], e.g. 2+2:3", e);
    }
  }
}
