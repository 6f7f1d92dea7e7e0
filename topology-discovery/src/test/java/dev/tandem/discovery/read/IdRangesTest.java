package dev.tandem.discovery.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("CPU, NUMA node and hwloc index numbers are checked against their ranges")
class IdRangesTest {

  @Test
  @DisplayName("the ends of each range pass; one past, negatives and non-numbers do not")
  void ranges() {
    assertEquals(8191, IdRanges.cpu("os_index", "8191"));
    assertEquals(1023, IdRanges.numaNode("numaid", " 1023 "));
    assertEquals(4294967295L, IdRanges.unsigned("os_index", "4294967295"));
    for (String bad : new String[] {"8192", "-1", "-2147483648", "", "0x1", "1e3", "٣"}) {
      assertThrows(IllegalArgumentException.class, () -> IdRanges.cpu("os_index", bad), bad);
    }
    assertThrows(IllegalArgumentException.class, () -> IdRanges.numaNode("numaid", "1024"));
    assertThrows(
        IllegalArgumentException.class,
        () -> IdRanges.unsigned("os_index", "99999999999999999999999"));
    assertEquals(
        "os_index '4294967296' is not a number from 0 to 4294967295 (hwloc's unsigned 32-bit index)",
        assertThrows(
                IllegalArgumentException.class, () -> IdRanges.unsigned("os_index", "4294967296"))
            .getMessage());
  }
}
