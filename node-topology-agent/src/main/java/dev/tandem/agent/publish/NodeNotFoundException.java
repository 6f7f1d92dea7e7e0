package dev.tandem.agent.publish;

/** The Node this agent publishes for does not exist in the API. */
public class NodeNotFoundException extends RuntimeException {

  public NodeNotFoundException(String node) {
    super(
        "node "
            + node
            + " does not exist in the Kubernetes API; the agent publishes NodeTopology only for"
            + " an existing Node it can own (set NODE_NAME from spec.nodeName with the downward API)");
  }
}
