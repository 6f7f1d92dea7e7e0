package dev.tandem.api.pod;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Quantity;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
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
    "1Gi, 1073741824",
    "2147483647, 2147483647",
    "2.147483647e9, 2147483647",
    "+3, 3",
    ".5, 1",
    "1., 1",
    "-0, 0",
    "0e99999999, 0",
    "0.000, 0",
    "1e-12000000, 1",
    "100n, 1",
    "2000000u, 2",
    "0.5Ki, 512",
    "1e0000000000000000000000003, 1000",
    "00000000000000000000000000002, 2",
    "2.00000000000000000000000000000000000000000000000000000000000000000000000, 2"
  })
  void counts(String text, long units) {
    assertEquals(units, DeviceQuantity.units(new Quantity(text)));
  }

  @ParameterizedTest(name = "[{0}]")
  @DisplayName("text that is not a count of devices is refused, quoting it")
  @CsvSource(
      delimiter = '|',
      value = {
        "abc | 'abc' is not a Kubernetes quantity (e.g. 2, 1k, 500m)",
        "2 x | is not a Kubernetes quantity",
        "-1 | '-1' is negative",
        ". | no digits",
        "1e | unknown suffix",
        "1e+ | an exponent without digits",
        "1Zi | unknown suffix",
        "1e99999999999999999999 | an exponent beyond 64 bits",
        "1.00000000000000000000000000000000000000000000000000000000000000001 | more than 64 significant"
      })
  void refused(String text, String message) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> DeviceQuantity.units(new Quantity(text)));
    assertEquals(true, e.getMessage().contains(message), e.getMessage());
    assertFalse(e instanceof DeviceCountTooLarge, e.getMessage());
  }

  @ParameterizedTest(name = "{0}")
  @DisplayName(
      "more devices than any node has is its own refusal, found from the text alone, however huge")
  @CsvSource({
    "2147483648",
    "99999999999999999999",
    "1E",
    "1Ti",
    "10E",
    "1e12000000",
    "9.9e2147483647",
    "1e10",
    "3Gi"
  })
  void tooLarge(String text) {
    DeviceCountTooLarge e =
        assertThrows(DeviceCountTooLarge.class, () -> DeviceQuantity.units(new Quantity(text)));
    assertTrue(e.getMessage().startsWith("'" + text + "' is more devices than any node has"));
  }

  @Test
  @DisplayName("a value of megabytes of digits is read in one pass and quoted short")
  void hugeText() {
    String text = "1" + "0".repeat(5_000_000);
    DeviceCountTooLarge e =
        assertThrows(DeviceCountTooLarge.class, () -> DeviceQuantity.units(new Quantity(text)));
    assertTrue(e.getMessage().contains("(5000001 chars)"), e.getMessage());
  }
}
