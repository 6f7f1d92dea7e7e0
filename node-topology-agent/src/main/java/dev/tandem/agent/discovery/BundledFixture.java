package dev.tandem.agent.discovery;

/**
 * A topology file shipped in the agent jar for demos ({@code fixtures/…} on the classpath).
 *
 * @param name the file name without extension, e.g. {@code dell-poweredge-xe8640-h100x4}
 * @param format {@link Format#HWLOC_XML} or {@link Format#NCCL_TOPO}
 * @param resource the classpath resource path, e.g. {@code fixtures/hwloc/dell-poweredge-xe8640-h100x4.xml}
 */
public record BundledFixture(String name, Format format, String resource) {

  /** The file format of a fixture. */
  public enum Format {
    HWLOC_XML,
    NCCL_TOPO
  }
}
