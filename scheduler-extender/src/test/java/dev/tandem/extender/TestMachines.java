package dev.tandem.extender;

import dev.tandem.topology.model.Machine;

/**
 * Forwards to {@link dev.tandem.fixtures.TestMachines} for the one test still importing this name
 * ({@code kube.KubeClusterMockTest}, being reworked with the configuration parsing): delete this
 * class once that import points at {@code dev.tandem.fixtures.TestMachines}.
 */
public final class TestMachines {

  private TestMachines() {}

  /** {@link dev.tandem.fixtures.TestMachines#pixNode()}. */
  public static Machine pixNode() {
    return dev.tandem.fixtures.TestMachines.pixNode();
  }
}
