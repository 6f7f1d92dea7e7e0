package dev.tandem.deviceplugin.grpc;

import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import java.util.List;
import java.util.function.Consumer;

/** A resource's devices with their health, as ListAndWatch serves them (HCA or GPU table). */
public interface DeviceListing {

  /** The full device list with health, as ListAndWatch sends it. */
  ListAndWatchResponse list();

  /** Registers a listener for full lists after each health change; returns its remover. */
  Runnable onChange(Consumer<ListAndWatchResponse> listener);

  /** Ids of the devices that are healthy now. */
  List<String> healthyIds();
}
