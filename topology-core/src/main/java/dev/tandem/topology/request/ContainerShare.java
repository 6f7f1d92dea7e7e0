package dev.tandem.topology.request;

import java.util.List;
import java.util.Objects;

/**
 * The part of a pod's planned devices one container is meant to get.
 *
 * @param name the container's name
 * @param init whether it is an init container (a sidecar included)
 * @param gpus GPU ids, a subset of the pod's planned GPUs
 * @param hcas HCA ids, entries of the pod's planned HCAs (in shared mode an HCA once per slot)
 */
public record ContainerShare(String name, boolean init, List<String> gpus, List<String> hcas) {

  public ContainerShare {
    Objects.requireNonNull(name, "name");
    gpus = List.copyOf(gpus);
    hcas = List.copyOf(hcas);
  }
}
