package dev.tandem.extender.state;

import com.github.benmanes.caffeine.cache.Interner;
import dev.tandem.api.crd.Sharing;

/**
 * The parts the cluster's trees have in common, each held once: nodes of one hardware model share
 * their PCIe tree, device names, PCI addresses and HCA attributes, and the groups of their devices
 * at each locality level ({@code GroupLayout}, the allocator's tables), and a node's name is one
 * string however many tables name it. Weakly held: a part no tree uses any more is collected.
 */
final class SharedParts implements Sharing {

  private final Interner<Object> parts = Interner.newWeakInterner();

  @Override
  @SuppressWarnings("unchecked")
  public <T> T share(T value) {
    return value == null ? null : (T) parts.intern(value);
  }
}
