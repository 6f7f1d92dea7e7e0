package dev.tandem.topology.locality;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the GPU↔NIC cells of an {@code nvidia-smi topo -m} matrix, with NIC numbers resolved by its
 * legend.
 */
record NvidiaSmiMatrix(List<String> columns, Map<String, Map<String, String>> cells) {

  static NvidiaSmiMatrix load(String resource) throws IOException {
    try (InputStream in =
        NvidiaSmiMatrix.class.getResourceAsStream("/topologies/nvidia-smi/" + resource)) {
      if (in == null) {
        throw new IOException("missing fixture /topologies/nvidia-smi/" + resource);
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    }
  }

  static NvidiaSmiMatrix parse(String text) {
    List<String> columns = null;
    Map<String, String> legend = new HashMap<>();
    Map<String, Map<String, String>> cells = new HashMap<>();
    List<String[]> rows = new ArrayList<>();
    for (String line : text.split("\n")) {
      String trimmed = line.trim();
      if (trimmed.matches("NIC\\d+: \\S+")) {
        String[] kv = trimmed.split(": ");
        legend.put(kv[0], kv[1]);
      } else if (columns == null && trimmed.startsWith("GPU0")) {
        columns = new ArrayList<>();
        for (String token : trimmed.split("\\s+")) {
          if (!token.matches("(GPU|NIC)\\d+|mlx5_\\w+")) {
            break;
          }
          columns.add(token);
        }
      } else if (columns != null && trimmed.matches("(GPU|NIC)\\d+\\s.*")) {
        rows.add(trimmed.split("\\s+"));
      }
    }
    List<String> named = columns.stream().map(c -> legend.getOrDefault(c, c)).toList();
    for (String[] row : rows) {
      Map<String, String> byColumn = new HashMap<>();
      for (int c = 0; c < named.size(); c++) {
        byColumn.put(named.get(c), row[c + 1]);
      }
      cells.put(legend.getOrDefault(row[0], row[0]), byColumn);
    }
    return new NvidiaSmiMatrix(named, cells);
  }

  String cell(String row, String column) {
    return cells.get(row).get(column);
  }
}
