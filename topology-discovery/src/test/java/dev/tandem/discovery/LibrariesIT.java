package dev.tandem.discovery;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * libhwloc and libibverbs through JNA on this machine (no RDMA device), and when they are absent.
 */
@DisplayName("native libraries: present, absent, no devices")
class LibrariesIT {

  @Test
  @DisplayName("libhwloc here is API 2.x and accepted")
  void hwlocVersion() {
    int version = new Hwloc().library().hwloc_get_api_version();
    assertEquals(2, version >>> 16);
  }

  @Test
  @DisplayName("an absent libhwloc is an error naming the Debian package libhwloc15")
  void hwlocAbsent() {
    var e =
        assertThrows(
            DiscoveryException.class, () -> new Hwloc("hwloc-not-installed-here").library());
    assertTrue(
        e.getMessage()
            .startsWith("libhwloc is not installed (install the Debian package libhwloc15)"),
        e.getMessage());
  }

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
