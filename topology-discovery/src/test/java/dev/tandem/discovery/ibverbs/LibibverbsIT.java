package dev.tandem.discovery.ibverbs;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** libibverbs through JNA on this machine (no RDMA device), and when it is absent. */
@DisplayName("libibverbs: no devices, absent")
class LibibverbsIT {

  @Test
  @DisplayName("libibverbs on a machine without RDMA devices reports none, as a note")
  void ibverbsNoDevices() {
    List<String> notes = new ArrayList<>();
    assertTrue(new Ibverbs().ports(notes).isEmpty());
    assertTrue(notes.get(0).startsWith("ibverbs: no RDMA devices"), notes.toString());
  }

  @Test
  @DisplayName("an absent libibverbs is a note, not an error")
  void ibverbsAbsent() {
    List<String> notes = new ArrayList<>();
    assertTrue(new Ibverbs("ibverbs-not-installed-here").ports(notes).isEmpty());
    assertTrue(
        notes
            .get(0)
            .startsWith("ibverbs: libibverbs is not installed (Debian package libibverbs1)"),
        notes.toString());
  }
}
