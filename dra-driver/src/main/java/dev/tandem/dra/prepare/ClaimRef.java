package dev.tandem.dra.prepare;

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

  /**
   * Whether {@code uid} can be a claim's UID: the API server makes UUIDs; anything else (a path, an
   * empty string) would name a file outside the CDI directory or an invalid CDI device, so it is
   * refused before it reaches a file name.
   */
  public static boolean isUid(String uid) {
    return uid != null && UID.matcher(uid).matches();
  }

  /** {@code namespace/name}, for messages. */
  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
