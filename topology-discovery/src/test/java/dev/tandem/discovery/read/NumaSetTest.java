package dev.tandem.discovery.read;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
}
