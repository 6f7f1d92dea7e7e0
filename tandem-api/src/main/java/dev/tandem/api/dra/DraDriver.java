package dev.tandem.api.dra;

/**
 * Tandem's DRA driver as other components name it: the driver publishes under this name unless its
 * {@code --driver-name} says otherwise, and the agent reads claims' devices of this name back to
 * the node's tree.
 */
public final class DraDriver {

  /** The driver name by default. */
  public static final String DEFAULT_NAME = "tandem.dev";

  private DraDriver() {}
}
