package dev.tandem.dra.claims;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.cdi.CdiDirectory;
import dev.tandem.dra.prepare.AllocatedDevice;
import dev.tandem.dra.prepare.Checkpoint;
import dev.tandem.dra.prepare.ClaimAllocation;
import dev.tandem.dra.prepare.ClaimOutcome;
import dev.tandem.dra.prepare.ClaimRef;
import dev.tandem.dra.prepare.Preparer;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.TestMachines;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@EnableKubernetesMockClient(crud = true)
@DisplayName(
    "Prepare reads the claim from the API server: UID, allocation results by driver and pool")
class ApiServerClaimsMockTest {

  static KubernetesClient client;

  @TempDir Path dir;

  static ResourceClaim claim(String name, boolean allocated) {
    ResourceClaimBuilder b =
        new ResourceClaimBuilder()
            .withNewMetadata()
            .withNamespace("team")
            .withName(name)
            .endMetadata()
            .withNewSpec()
            .withNewDevices()
            .addNewRequest()
            .withName("pair")
            .endRequest()
            .endDevices()
            .endSpec();
    if (allocated) {
      b.withNewStatus()
          .withNewAllocation()
          .withNewDevices()
          .addNewResult()
          .withRequest("pair")
          .withDriver("tandem.dev")
          .withPool("n1")
          .withDevice("gpu-a1")
          .endResult()
          .addNewResult()
          .withRequest("pair")
          .withDriver("tandem.dev")
          .withPool("n1")
          .withDevice("mlx5-0")
          .endResult()
          .endDevices()
          .endAllocation()
          .endStatus();
    }
    ResourceClaim created =
        client.dynamicResourceAllocation().v1().resourceClaims().resource(b.build()).create();
    if (allocated) {
      // the mock's create keeps the status as given, as the scheduler's status write would set it
      created.setStatus(b.build().getStatus());
      client.dynamicResourceAllocation().v1().resourceClaims().resource(created).updateStatus();
    }
    return client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("team")
        .withName(name)
        .get();
  }

  @Test
  @DisplayName("an allocated claim reads as its UID and results; a missing one as none")
  void reads() {
    ResourceClaim c = claim("allocated", true);
    ApiServerClaims claims = new ApiServerClaims(client);
    assertEquals(
        Optional.of(
            new ClaimAllocation(
                c.getMetadata().getUid(),
                true,
                List.of(
                    new AllocatedDevice("pair", "tandem.dev", "n1", "gpu-a1"),
                    new AllocatedDevice("pair", "tandem.dev", "n1", "mlx5-0")))),
        claims.claim("team", "allocated"));
    ResourceClaim pending = claim("pending", false);
    assertEquals(
        Optional.of(new ClaimAllocation(pending.getMetadata().getUid(), false, List.of())),
        claims.claim("team", "pending"));
    assertEquals(Optional.empty(), claims.claim("team", "nothing"));
  }

  @Test
  @DisplayName("Prepare through the API server: the claim's devices; a pending claim's error")
  void preparesFromTheApiServer() {
    ResourceClaim c = claim("train", true);
    Preparer preparer =
        new Preparer(
            "tandem.dev",
            () -> PoolBuilder.build(TestMachines.twoSwitchesAndLoneHca("n1"), PoolSpec.joint()),
            new ApiServerClaims(client),
            new CdiDirectory(dir.resolve("cdi")),
            dir.resolve("devinfo"),
            Checkpoint.open(dir.resolve("checkpoint.json")),
            "rdma/hca");
    ClaimOutcome o = preparer.prepare(new ClaimRef("team", c.getMetadata().getUid(), "train"));
    assertEquals("", o.error());
    assertEquals(List.of("gpu-a1", "mlx5-0"), o.devices().stream().map(d -> d.device()).toList());
    ResourceClaim pending = claim("waiting", false);
    String error =
        preparer.prepare(new ClaimRef("team", pending.getMetadata().getUid(), "waiting")).error();
    assertTrue(error.contains("team/waiting is not allocated"), error);
  }
}
