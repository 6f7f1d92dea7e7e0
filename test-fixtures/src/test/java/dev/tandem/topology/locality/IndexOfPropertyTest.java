package dev.tandem.topology.locality;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.tandem.fixtures.Sketch;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.Machine;
import java.util.List;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Label;
import net.jqwik.api.Property;

/**
 * The index finds each device of a tree by its id, at its place in canonical order, and no other.
 */
class IndexOfPropertyTest {

  @Property(tries = 1000)
  @Label("indexOf(id) is the device's place in canonical order; an id not on the node is refused")
  void indexOfEveryDevice(@ForAll long seed) {
    Machine machine = Sketch.random(new Random(seed), "random", 0, 10);
    LocalityIndex index = LocalityIndex.of(machine);
    List<Device> devices = index.devices();
    for (int d = 0; d < devices.size(); d++) {
      assertEquals(d, index.indexOf(devices.get(d).id()), "seed " + seed);
      String near = devices.get(d).id() + "0";
      if (devices.stream().noneMatch(x -> x.id().equals(near))) {
        assertThrows(IllegalArgumentException.class, () -> index.indexOf(near), "seed " + seed);
      }
    }
    assertThrows(IllegalArgumentException.class, () -> index.indexOf(""), "seed " + seed);
  }
}
