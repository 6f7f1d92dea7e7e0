package dev.tandem.topology.model;

/** A topology that cannot be a real machine's: names the node and what is wrong. */
public class InvalidTopologyException extends IllegalArgumentException {

  private static final long serialVersionUID = 1L;

  public InvalidTopologyException(String nodeName, String problem) {
    super("topology of node " + nodeName + " is invalid: " + problem);
  }
}
