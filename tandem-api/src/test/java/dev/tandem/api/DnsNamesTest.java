package dev.tandem.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("lowercase DNS subdomains and labels, as Kubernetes validates them")
class DnsNamesTest {

  @ParameterizedTest
  @CsvSource({
    "tandem.dev, true",
    "a, true",
    "gpu-0.example.com, true",
    "0a.b9, true",
    "Tandem.dev, false",
    "-tandem.dev, false",
    "tandem-.dev, false",
    "tandem..dev, false",
    "tandem.dev., false",
    "tandem_dev, false",
    "'', false"
  })
  void subdomains(String text, boolean valid) {
    assertEquals(valid, DnsNames.isSubdomain(text), text);
  }

  @ParameterizedTest
  @CsvSource({
    "team, true",
    "a, true",
    "0-a9, true",
    "team.a, false",
    "Team, false",
    "-team, false",
    "team-, false",
    "a/b, false",
    "'..', false",
    "'', false"
  })
  void labels(String text, boolean valid) {
    assertEquals(valid, DnsNames.isLabel(text), text);
  }
}
