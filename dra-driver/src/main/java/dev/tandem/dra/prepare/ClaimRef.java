package dev.tandem.dra.prepare;

import dev.tandem.api.DnsNames;
import java.util.regex.Pattern;

/**
 * A claim the kubelet asks about: its namespace, UID and name.
 *
 * @param namespace the claim's namespace
 * @param uid the claim's UID
 * @param name the claim's name
 */
public record ClaimRef(String namespace, String uid, String name) {

  private static final Pattern UID = Pattern.compile("[0-9A-Za-z][0-9A-Za-z-]{0,127}");

  /** The longest object name Kubernetes accepts (a DNS subdomain, RFC 1123). */
  public static final int MAX_NAME_LENGTH = 253;

  /** The longest namespace (a DNS label). */
  public static final int MAX_NAMESPACE_LENGTH = 63;

  /**
   * Whether {@code uid} can be a claim's UID: the API server makes UUIDs; anything else (a path, an
   * empty string) would name a file outside the CDI directory or an invalid CDI device, so it is
   * refused before it reaches a file name.
   */
  public static boolean isUid(String uid) {
    return uid != null && UID.matcher(uid).matches();
  }

  /**
   * Whether the namespace is a DNS label and the name a DNS subdomain (RFC 1123), as the API server
   * requires of every ResourceClaim: anything else (empty, {@code a/b}, {@code ..}) is not a claim,
   * and would make another path of the API server's, so it is refused before it is asked.
   */
  public boolean isKubernetesName() {
    return namespace != null
        && name != null
        && namespace.length() <= MAX_NAMESPACE_LENGTH
        && name.length() <= MAX_NAME_LENGTH
        && DnsNames.isLabel(namespace)
        && DnsNames.isSubdomain(name);
  }

  /** {@code namespace/name}, for messages, each part as {@link UntrustedText} shows it. */
  @Override
  public String toString() {
    return UntrustedText.shown(namespace) + "/" + UntrustedText.shown(name);
  }
}
