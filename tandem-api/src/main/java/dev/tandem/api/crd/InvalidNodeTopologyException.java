package dev.tandem.api.crd;

/** A NodeTopology object that cannot be turned back into a machine. */
public class InvalidNodeTopologyException extends RuntimeException {

  public InvalidNodeTopologyException(String node, String problem) {
    super(
        "NodeTopology "
            + node
            + " cannot be read: "
            + problem
            + " (re-publish it from that node's agent, or delete it and let the agent recreate it)");
  }
}
