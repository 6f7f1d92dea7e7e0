package dev.tandem.api.crd;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import java.util.List;

/**
 * The MIG devices of one GPU, as NVML reports them on the node: what lets a MIG UUID the kubelet
 * reports ({@code MIG-…}) stand for its physical GPU ({@code dev.tandem.api.identity.MigLayout}).
 *
 * @param gpu the GPU's id in {@code spec.devices}
 * @param devices the UUIDs of its MIG devices ({@code MIG-…})
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record MigEntry(String gpu, List<String> devices) {

  public MigEntry {
    devices = devices == null ? List.of() : List.copyOf(devices);
  }
}
