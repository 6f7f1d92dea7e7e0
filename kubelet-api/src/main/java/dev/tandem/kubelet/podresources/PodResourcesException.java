package dev.tandem.kubelet.podresources;

import java.nio.file.Path;

/** A PodResources call that failed, naming the socket and the method. */
public class PodResourcesException extends RuntimeException {

  public PodResourcesException(Path socket, String method, Throwable cause) {
    super(
        "kubelet PodResources "
            + method
            + " on "
            + socket
            + " failed: "
            + describe(cause)
            + " (is the kubelet running and the socket mounted into the pod?)",
        cause);
  }

  private static String describe(Throwable cause) {
    String m = cause.getMessage();
    return cause.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }
}
