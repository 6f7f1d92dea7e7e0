package dev.tandem.dra.prepare;

import java.util.List;

/**
 * What Prepare did for a claim, as the checkpoint keeps it so that a restarted driver answers the
 * same Prepare again and undoes it on Unprepare.
 *
 * @param uid the claim's UID
 * @param namespace the claim's namespace
 * @param name the claim's name
 * @param devices the devices the kubelet was told about
 * @param cdiSpec the file name of the claim's CDI spec in the CDI directory; null when the claim
 *     has no HCA
 */
public record PreparedClaim(
    String uid, String namespace, String name, List<PreparedDevice> devices, String cdiSpec) {

  public PreparedClaim {
    devices = List.copyOf(devices);
  }
}
