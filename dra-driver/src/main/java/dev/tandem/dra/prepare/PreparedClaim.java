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
 * @param deviceInfo the file names of its VFs' Device Information files in the device-info
 *     directory; empty when it has no VF (and in checkpoints written before VFs were prepared)
 */
public record PreparedClaim(
    String uid,
    String namespace,
    String name,
    List<PreparedDevice> devices,
    String cdiSpec,
    List<String> deviceInfo) {

  public PreparedClaim {
    devices = List.copyOf(devices);
    deviceInfo = deviceInfo == null ? List.of() : List.copyOf(deviceInfo);
  }
}
