package dev.tandem.api;

import java.util.regex.Pattern;

/**
 * Kubernetes' rule for lowercase DNS subdomains (RFC 1123): dot-separated labels of lowercase
 * letters, digits and {@code -}, each beginning and ending with a letter or digit. Each caller
 * applies its own length bound, since the API's differ (253 for a resource's domain, 63 for a DRA
 * driver name, the attribute domain's for DRA attribute names).
 */
public final class DnsNames {

  private static final Pattern LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
  private static final Pattern SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private DnsNames() {}

  /** Whether {@code text} is shaped as one lowercase DNS label (no dot), whatever its length. */
  public static boolean isLabel(String text) {
    return LABEL.matcher(text).matches();
  }

  /** Whether {@code text} is shaped as a lowercase DNS subdomain, whatever its length. */
  public static boolean isSubdomain(String text) {
    return SUBDOMAIN.matcher(text).matches();
  }
}
