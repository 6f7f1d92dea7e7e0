package dev.tandem.agent.publish;

import dev.tandem.topology.model.Machine;
import java.util.List;

/** Where the publish loop gets the node's topology from; blocking (file I/O, JNA). */
@FunctionalInterface
public interface TopologySource {

  /**
   * A topology as discovered now, with the discovery's remarks.
   *
   * @param machine the node's tree
   * @param notes what discovery wants operators to know (fallbacks, duplicate ids)
   */
  record Observed(Machine machine, List<String> notes) {
    public Observed {
      notes = List.copyOf(notes);
    }
  }

  Observed discover() throws Exception;
}
