package dev.tandem.api.crd;

/**
 * How a reader of many trees shares their equal parts. Nodes of one hardware model publish the same
 * PCIe tree, device names, models and HCA attributes; only ids such as GPU UUIDs differ. The {@link
 * NodeTopologyMapper} hands every part that may repeat across nodes to {@link #share}, which
 * returns an equal instance it already holds, so that a cluster of thousands of nodes holds each
 * model's parts once.
 */
public interface Sharing {

  /** Shares nothing: every tree keeps its own parts. */
  Sharing NONE =
      new Sharing() {
        @Override
        public <T> T share(T value) {
          return value;
        }
      };

  /**
   * An instance equal to {@code value} (immutable: a string, a record, an immutable list), maybe
   * {@code value} itself; null for null.
   */
  <T> T share(T value);
}
