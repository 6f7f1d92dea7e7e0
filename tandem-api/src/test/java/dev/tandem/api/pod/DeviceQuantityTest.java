package dev.tandem.api.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName(
    "a quantity as a count of devices: kube-scheduler's Value(), rounded up; bad input named")
class DeviceQuantityTest {

  @ParameterizedTest(name = "{0} is {1}")
  @DisplayName("every Kubernetes quantity form, fractions rounded up as Quantity.Value() does")
  @CsvSource({
    "2, 2",
    "0, 0",
    "1k, 1000",
    "1Ki, 1024",
    "2000m, 2",
    "1500m, 2",
    "500m, 1",
    "1.5, 2",
    "0.002k, 2",
    "1e3, 1000",
    "1Ti, 1099511627776",
    "1E, 1000000000000000000"
  })
  void counts(String text, long units) {
    assertEquals(units, DeviceQuantity.units(new Quantity(text)));
  }

  @ParameterizedTest(name = "{0}")
  @DisplayName("text that is not a count of devices is refused, quoting it")
  @CsvSource(
      delimiter = '|',
      value = {
        "abc | 'abc' is not a Kubernetes quantity (e.g. 2, 1k, 500m)",
        "2 x | is not a Kubernetes quantity",
        "-1 | '-1' is negative",
        "99999999999999999999 | '99999999999999999999' is too large for a device count",
        "10E | is too large for a device count"
      })
  void refused(String text, String message) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> DeviceQuantity.units(new Quantity(text)));
    assertEquals(true, e.getMessage().contains(message), e.getMessage());
  }
}
