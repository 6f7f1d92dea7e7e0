package dev.tandem.dra.prepare;

/**
 * A claim the kubelet asks about: its namespace, UID and name.
 *
 * @param namespace the claim's namespace
 * @param uid the claim's UID
 * @param name the claim's name
 */
public record ClaimRef(String namespace, String uid, String name) {

  /** {@code namespace/name}, for messages. */
  @Override
  public String toString() {
    return namespace + "/" + name;
  }
}
