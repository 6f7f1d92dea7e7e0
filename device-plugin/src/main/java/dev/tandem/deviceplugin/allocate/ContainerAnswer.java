package dev.tandem.deviceplugin.allocate;

import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import java.util.List;

/**
 * What one resource gives a container in Allocate: the part of {@link AllocateResponder} that
 * differs.
 */
@FunctionalInterface
public interface ContainerAnswer {

  /**
   * @param ids device ids the plugin offers, as the kubelet allocated them
   * @throws AllocationException when the devices cannot be handed out
   */
  ContainerAllocateResponse answer(List<String> ids);
}
