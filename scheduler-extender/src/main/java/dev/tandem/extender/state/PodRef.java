package dev.tandem.extender.state;

/** A pod as the scheduler names it in a bind. */
public record PodRef(String namespace, String name, String uid) {

  @Override
  public String toString() {
    return namespace + "/" + name + " (uid " + uid + ")";
  }
}
