package dev.tandem.dra.prepare;

import java.util.List;

/**
 * A device of a prepared claim, as the kubelet is told about it.
 *
 * @param requests the claim's requests it serves
 * @param pool its pool
 * @param device its name in the pool
 * @param cdiIds the fully qualified CDI names the runtime injects for it
 */
public record PreparedDevice(
    List<String> requests, String pool, String device, List<String> cdiIds) {

  public PreparedDevice {
    requests = List.copyOf(requests);
    cdiIds = List.copyOf(cdiIds);
  }
}
