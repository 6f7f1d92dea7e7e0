package dev.tandem.deviceplugin.resource;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.deviceplugin.preferred.PreferredPolicy;
import dev.tandem.deviceplugin.preferred.PreferredRequest;
import dev.tandem.deviceplugin.preferred.Side;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

@DisplayName("the kubelet's messages mapped to and from the policy's domain types, at the edge")
class PreferredWireTest {

  static final Set<String> OFFERED = Set.of("mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3");

  /** Records what it is asked and told; answers each request when the test says so. */
  static final class Recording implements PreferredPolicy {
    final List<PreferredRequest> asked = new ArrayList<>();
    final List<Promise<List<String>>> answers = new ArrayList<>();
    final List<String> told = new ArrayList<>();

    @Override
    public Future<List<String>> choose(PreferredRequest request) {
      asked.add(request);
      Promise<List<String>> p = Promise.promise();
      answers.add(p);
      return p.future();
    }

    @Override
    public void allocated(Side side, List<String> ids) {
      told.add(side + " " + ids);
    }
  }

  @Test
  @DisplayName(
      "one domain request per container request (resource, offered, must-include, size); answers in"
          + " request order, whichever is decided first")
  void preferred() {
    Recording policy = new Recording();
    PreferredAllocationRequest request =
        PreferredAllocationRequest.newBuilder()
            .addContainerRequests(
                ContainerPreferredAllocationRequest.newBuilder()
                    .addAllAvailableDeviceIDs(List.of("mlx5_0", "mlx5_1", "mlx5_2"))
                    .addMustIncludeDeviceIDs("mlx5_2")
                    .setAllocationSize(2))
            .addContainerRequests(
                ContainerPreferredAllocationRequest.newBuilder()
                    .addAllAvailableDeviceIDs(List.of("mlx5_3"))
                    .setAllocationSize(1))
            .build();
    var response = PreferredWire.answer(policy, Side.HCA, request, OFFERED);
    assertEquals(
        List.of(
            new PreferredRequest(
                Side.HCA, List.of("mlx5_0", "mlx5_1", "mlx5_2"), List.of("mlx5_2"), 2),
            new PreferredRequest(Side.HCA, List.of("mlx5_3"), List.of(), 1)),
        policy.asked);
    policy.answers.get(1).complete(List.of("mlx5_3"));
    policy.answers.get(0).complete(List.of("mlx5_2", "mlx5_0"));
    assertEquals(
        List.of(List.of("mlx5_2", "mlx5_0"), List.of("mlx5_3")),
        response.await().getContainerResponsesList().stream()
            .map(ContainerPreferredAllocationResponse::getDeviceIDsList)
            .toList());
  }

  @Test
  @DisplayName("ids the resource does not offer never reach the policy, so no answer names one")
  void unknownIdsDropped() {
    Recording policy = new Recording();
    PreferredWire.answer(
        policy,
        Side.HCA,
        PreferredAllocationRequest.newBuilder()
            .addContainerRequests(
                ContainerPreferredAllocationRequest.newBuilder()
                    .addAllAvailableDeviceIDs(List.of("mlx5_99", "mlx5_0", "GPU-x"))
                    .addMustIncludeDeviceIDs("mlx5_99")
                    .setAllocationSize(2))
            .build(),
        OFFERED);
    assertEquals(
        List.of(new PreferredRequest(Side.HCA, List.of("mlx5_0"), List.of(), 2)), policy.asked);
  }

  @Test
  @DisplayName("Allocate tells the policy each container's devices, for its resource")
  void allocated() {
    Recording policy = new Recording();
    PreferredWire.allocated(
        policy,
        Side.GPU,
        AllocateRequest.newBuilder()
            .addContainerRequests(ContainerAllocateRequest.newBuilder().addDevicesIds("GPU-0"))
            .addContainerRequests(
                ContainerAllocateRequest.newBuilder().addAllDevicesIds(List.of("GPU-1", "GPU-2")))
            .build());
    assertEquals(List.of("GPU [GPU-0]", "GPU [GPU-1, GPU-2]"), policy.told);
  }
}
