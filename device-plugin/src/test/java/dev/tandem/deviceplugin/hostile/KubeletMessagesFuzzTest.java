package dev.tandem.deviceplugin.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.tandem.deviceplugin.DevicePlugin;
import dev.tandem.deviceplugin.config.GpuConfig;
import dev.tandem.deviceplugin.config.ResourceConfig;
import dev.tandem.deviceplugin.hostile.HostileCall.Method;
import dev.tandem.deviceplugin.resource.ResourcePlugin;
import dev.tandem.deviceplugin.standin.KubeletStandIn;
import dev.tandem.deviceplugin.standin.StandInWiring;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.deviceplugin.v1beta1.ContainerPreferredAllocationResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.Device;
import dev.tandem.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationResponse;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;

/**
 * The kubelet's calls to the plugin over its real Unix sockets, drawn by {@link HostileKubelet}: a
 * joint-mode plugin ({@code rdma/hca} and {@code nvidia.com/gpu}) registered with the kubelet
 * stand-in, as the device plugin's integration tests start it. Properties, for every call:
 *
 * <ul>
 *   <li>it is answered within {@link #ANSWER_WITHIN} (the kubelet's own deadline for a call);
 *   <li>the answer carries a gRPC status; never UNKNOWN or INTERNAL (an exception that escaped),
 *       and a status other than OK says what is wrong in a message of at most {@link
 *       #MESSAGE_AT_MOST} characters; only a call whose client ended the stream before the whole
 *       frame it announced may instead be reset;
 *   <li>an OK answer hands out nothing the plugin does not have: Allocate succeeds only when every
 *       id asked for is one of the plugin's; GetPreferredAllocation answers each container request
 *       with ids of the plugin's, at most the size asked for; ListAndWatch lists exactly its
 *       devices;
 *   <li>after the call, both sockets still answer GetDevicePluginOptions.
 * </ul>
 *
 * {@code mvn verify} replays the corpus; {@code benchmarks/run-fuzz KubeletMessages} fuzzes it.
 */
class KubeletMessagesFuzzTest {

  /** The kubelet's deadline for a call to a plugin; {@code tandem.fuzz.answerWithin} overrides. */
  private static final Duration ANSWER_WITHIN =
      Duration.parse(System.getProperty("tandem.fuzz.answerWithin", "PT10S"));

  /** The longest status message: it travels in a trailer, and the kubelet logs it whole. */
  static final int MESSAGE_AT_MOST = 2048;

  /** gRPC's codes that mean the server failed rather than the request. */
  private static final Set<Integer> SERVER_FAILED = Set.of(2, 13);

  private static Started plugin;

  private record Started(Vertx vertx, DevicePlugin plugin, RawGrpc client, List<String> own) {}

  @FuzzTest(maxDuration = "60s")
  @Timeout(value = 2, unit = TimeUnit.MINUTES)
  void answersWithAStatusAndOnlyItsOwnDevices(FuzzedDataProvider data) {
    if (plugin == null) {
      plugin = start();
    }
    HostileCall call = HostileKubelet.draw(data, plugin.own());
    ResourcePlugin resource = call.gpu() ? plugin.plugin().gpu() : plugin.plugin().hca();
    boolean streaming = call.method() == Method.LIST_AND_WATCH;
    Path used = socket(resource);
    RawGrpc.Answer answer =
        plugin
            .client()
            .call(socket(resource), call.method().path(), call.body(), streaming, ANSWER_WITHIN);

    if (answer.timedOut()) {
      fail("no answer within " + ANSWER_WITHIN + " to " + call);
    }
    if (answer.reset()) {
      assertTrue(call.cutShort(), () -> "stream reset without a status: " + answer + ", " + call);
    } else {
      check(call, resource, answer);
    }
    if (streaming && !answer.messages().isEmpty()) {
      reRegistered(resource, used);
    }
    stillAnswers(plugin.plugin().hca(), call);
    stillAnswers(plugin.plugin().gpu(), call);
  }

  private static void check(HostileCall call, ResourcePlugin resource, RawGrpc.Answer answer) {
    boolean streaming = call.method() == Method.LIST_AND_WATCH;
    if (!streaming || answer.messages().isEmpty()) {
      assertNotEquals(-1, answer.status(), () -> "no grpc-status: " + answer + " to " + call);
    }
    assertFalse(SERVER_FAILED.contains(answer.status()), () -> answer + " to " + call);
    if (answer.status() > 0) {
      assertFalse(answer.message().isBlank(), () -> "no message: " + answer + " to " + call);
      assertTrue(
          answer.message().length() <= MESSAGE_AT_MOST,
          () -> answer.message().length() + " characters of message to " + call);
      return;
    }
    Set<String> own = Set.copyOf(ids(resource.list()));
    switch (call.method()) {
      case ALLOCATE ->
          assertTrue(
              Requested.allocate(call.message()).stream().allMatch(own::contains),
              () -> "Allocate OK for ids the plugin does not have: " + call);
      case PREFERRED -> preferred(call, own, answer);
      case LIST_AND_WATCH ->
          assertEquals(
              List.copyOf(ids(resource.list())),
              ids(parse(answer, ListAndWatchResponse::parseFrom)),
              "ListAndWatch's first list");
      default -> {}
    }
  }

  private static void preferred(HostileCall call, Set<String> own, RawGrpc.Answer answer) {
    PreferredAllocationResponse r = parse(answer, PreferredAllocationResponse::parseFrom);
    List<Requested.Preferred> asked = Requested.preferred(call.message());
    assertEquals(asked.size(), r.getContainerResponsesCount(), "one answer per container request");
    for (int i = 0; i < asked.size(); i++) {
      ContainerPreferredAllocationResponse c = r.getContainerResponses(i);
      int size = asked.get(i).size();
      assertTrue(
          c.getDeviceIDsCount() <= Math.max(0, size),
          () -> c.getDeviceIDsCount() + " ids for a size of " + size + ": " + call);
      for (String id : c.getDeviceIDsList()) {
        assertTrue(own.contains(id), () -> "preferred " + id + ", not the plugin's: " + call);
      }
    }
  }

  private interface Parser<T> {
    T parse(byte[] b) throws InvalidProtocolBufferException;
  }

  private static <T> T parse(RawGrpc.Answer answer, Parser<T> p) {
    assertEquals(1, Math.min(1, answer.messages().size()), () -> "no message in " + answer);
    try {
      return p.parse(answer.messages().get(0));
    } catch (InvalidProtocolBufferException e) {
      throw new AssertionError("the plugin's answer does not decode: " + e.getMessage(), e);
    }
  }

  private static List<String> ids(ListAndWatchResponse l) {
    return l.getDevicesList().stream().map(Device::getID).toList();
  }

  /** GetDevicePluginOptions on the resource's socket (a new one after a re-registration). */
  private static void stillAnswers(ResourcePlugin resource, HostileCall after) {
    long until = System.nanoTime() + ANSWER_WITHIN.toNanos();
    RawGrpc.Answer last = null;
    while (System.nanoTime() < until) {
      last =
          plugin
              .client()
              .call(socket(resource), Method.OPTIONS.path(), new byte[5], false, ANSWER_WITHIN);
      if (last.status() == 0 && last.messages().size() == 1) {
        return;
      }
      Thread.onSpinWait();
    }
    fail(
        resource.resourceName()
            + " no longer answers GetDevicePluginOptions after "
            + after
            + ": "
            + last);
  }

  /**
   * The kubelet cancelling ListAndWatch makes the plugin register again, on a socket of its own
   * ({@code PluginLifecycle}): the next call goes there, not to the socket being removed.
   */
  private static void reRegistered(ResourcePlugin resource, Path before) {
    long until = System.nanoTime() + ANSWER_WITHIN.toNanos();
    while (System.nanoTime() < until) {
      if (resource.lifecycle().socket().filter(s -> !s.equals(before)).isPresent()) {
        return;
      }
      Thread.onSpinWait();
    }
    fail(resource.resourceName() + " did not register again within " + ANSWER_WITHIN);
  }

  private static Path socket(ResourcePlugin resource) {
    long until = System.nanoTime() + ANSWER_WITHIN.toNanos();
    while (System.nanoTime() < until) {
      var s = resource.lifecycle().socket();
      if (s.isPresent()) {
        return s.get();
      }
      Thread.onSpinWait();
    }
    throw new AssertionError(resource.resourceName() + " serves no socket");
  }

  private static Started start() {
    try {
      Vertx vertx = Vertx.vertx();
      Path dir = Files.createTempDirectory("kubelet-fuzz");
      Path sysfs = Files.createTempDirectory("sysfs-fuzz");
      Machine machine = TestMachines.twoSockets("n1");
      FakeSysfs.write(sysfs, machine);
      KubeletStandIn kubelet = new KubeletStandIn(vertx, dir);
      kubelet.start().await();
      ResourceConfig joint =
          ResourceConfig.DEFAULT.withGpu(
              new GpuConfig(true, false, "nvidia.com/gpu", Duration.ofSeconds(30)));
      DevicePlugin p =
          new DevicePlugin(
              vertx,
              StandInWiring.of(machine, joint, dir, sysfs, kubelet)
                  .plans(node -> Future.succeededFuture(List.of()))
                  .gpuSocket(dir.resolve("tandem-gpu.sock"))
                  .build());
      p.start().await();
      List<String> own = new ArrayList<>(ids(p.hca().list()));
      own.addAll(ids(p.gpu().list()));
      return new Started(vertx, p, new RawGrpc(vertx), List.copyOf(own));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
