package dev.tandem.api.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The attribute values read from text (the trees' attributes: dra-driver's PoolBuilderTest). */
class DeviceAttributesTest {

  @Test
  @DisplayName("rateGbps: the whole Gb/s a port's rate starts with; none for a fraction or no rate")
  void rateGbps() {
    assertEquals(Optional.of(400L), DeviceAttributes.gbps("400 Gb/sec (4X NDR)"));
    assertEquals(Optional.of(100L), DeviceAttributes.gbps("100"));
    assertEquals(Optional.empty(), DeviceAttributes.gbps("2.5 Gb/sec (1X SDR)"));
    assertEquals(Optional.empty(), DeviceAttributes.gbps(null));
  }
}
