package dev.tandem.discovery.hwloc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DiscoveryException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** libhwloc through JNA on this machine, and when it is absent. */
@DisplayName("libhwloc: present and accepted, absent")
class LibhwlocIT {

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
}
