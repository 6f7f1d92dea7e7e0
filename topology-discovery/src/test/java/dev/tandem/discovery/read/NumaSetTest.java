package dev.tandem.discovery.read;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("NUMA and CPU sets as hwloc and Linux write them")
class NumaSetTest {

  @Test
  @DisplayName("hwloc bitmaps are 32-bit words, most significant first")
  void bitmap() {
    assertEquals(List.of(0, 1), NumaSet.parseBitmap("0x00000003"));
    assertEquals(List.of(32, 33, 34, 35), NumaSet.parseBitmap("0x0000000f,0x00000000"));
    assertEquals(List.of(), NumaSet.parseBitmap(""));
  }

  @Test
  @DisplayName("Linux lists round-trip and name CPU domains")
  void lists() {
    assertEquals(List.of(0, 1, 2, 3, 8), NumaSet.parseList("0-3,8"));
    assertEquals("0-3,8", NumaSet.toList(List.of(8, 0, 1, 2, 3)));
    assertEquals("numa:0", NumaSet.domainId(List.of(0)));
    assertEquals("numa:0,2", NumaSet.domainId(List.of(2, 0)));
    assertEquals("machine", NumaSet.domainId(List.of()));
  }

  @Test
  @DisplayName(
      "a list with a number no Linux CPU or NUMA node has, or a reversed range, is refused before"
          + " it is expanded")
  void hostileLists() {
    String huge =
        assertThrows(NumberFormatException.class, () -> NumaSet.parseList("0-2147483647"))
            .getMessage();
    assertTrue(huge.contains("2147483647 is not a number from 0 to 8191"), huge);
    assertThrows(NumberFormatException.class, () -> NumaSet.parseList("-1"));
    String reversed =
        assertThrows(NumberFormatException.class, () -> NumaSet.parseList("5-3")).getMessage();
    assertTrue(reversed.contains("ends below its start"), reversed);
    assertEquals(8192, NumaSet.parseList("0-8191").size());
  }
}
