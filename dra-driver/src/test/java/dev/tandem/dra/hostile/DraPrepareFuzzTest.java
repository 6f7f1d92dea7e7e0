package dev.tandem.dra.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.api.SilentCloseable;
import com.code_intelligence.jazzer.junit.FuzzTest;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tandem.dra.DraConfig;
import dev.tandem.dra.DraDriver;
import dev.tandem.dra.cdi.ClaimSpec;
import dev.tandem.dra.hostile.HostileClaims.CdiState;
import dev.tandem.dra.hostile.HostileClaims.HostileClaim;
import dev.tandem.dra.hostile.HostileClaims.Planted;
import dev.tandem.dra.hostile.HostileClaims.Round;
import dev.tandem.dra.hostile.HostileClaims.Tamper;
import dev.tandem.dra.prepare.ClaimRef;
import dev.tandem.dra.slices.PublishedDevice;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.kubelet.KubeletGrpcClient;
import dev.tandem.kubelet.dra.v1.Claim;
import dev.tandem.kubelet.dra.v1.DRAPluginGrpcClient;
import dev.tandem.kubelet.dra.v1.Device;
import dev.tandem.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.SocketAddress;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;

/**
 * The DRA driver's Prepare and Unprepare as the kubelet calls them, over the driver's real Unix
 * socket, with claims the fabric8 mock API server answers and a CDI directory in states drawn by
 * {@link HostileClaims}. The driver is the real daemon ({@link DraDriver}) on a fixture machine
 * (HCA-only mode). Properties, after every call:
 *
 * <ul>
 *   <li>the call succeeds (never a gRPC error), within the kubelet's 45 s deadline, with an entry
 *       for every claim asked;
 *   <li>every claim is prepared correctly or has an error naming it, of bounded length, without a
 *       Java exception's name: a prepared claim's devices are devices this driver published in this
 *       node's pool, each one of the claim's own results; each HCA's CDI id is in the claim's spec;
 *   <li>the CDI directory holds only complete specs of claims prepared and not since unprepared,
 *       files planted under their own names, and the foreign files as they were: no temporary file,
 *       no spec of a claim that failed, nothing written through a link out of the directory;
 * </ul>
 *
 * and after the round, with the directory restored: Unprepare of every claim succeeds, leaves no
 * spec of the driver, and a plain claim is prepared and unprepared (the driver still answers).
 * {@code mvn verify} replays the corpus; {@code benchmarks/run-fuzz DraPrepare} fuzzes it.
 */
class DraPrepareFuzzTest {

  /** The kubelet's deadline for each Prepare and Unprepare call. */
  private static final Duration ANSWER_WITHIN = Duration.ofSeconds(45);

  /** The longest claim error accepted (the kubelet logs it and puts it in a pod event). */
  static final int MAX_ERROR_CHARS = 4_096;

  private static final Pattern JAVA_EXCEPTION =
      Pattern.compile("\\b(?:[a-z][a-z0-9_]*\\.)+[A-Z]\\w*(?:Exception|Error)\\b");
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final byte[] FOREIGN =
      "{\"cdiVersion\":\"0.5.0\",\"kind\":\"other.example/x\",\"devices\":[]}"
          .getBytes(StandardCharsets.UTF_8);

  /** Started by the first input (Jazzer runs a test class's static code before it can fuzz). */
  private static Driver running;

  private record Driver(
      Path base, ClaimsApiServer api, DraDriver driver, DRAPluginGrpcClient kubelet) {
    Path cdiRoot() {
      return base.resolve("cdiroot");
    }

    Path cdi() {
      return cdiRoot().resolve("cdi");
    }

    Path outside() {
      return base.resolve("outside");
    }

    Set<String> published() {
      Set<String> out = new HashSet<>();
      driver.pool().devices().stream().map(PublishedDevice::name).forEach(out::add);
      return out;
    }
  }

  @FuzzTest(maxDuration = "60s")
  @Timeout(value = 15, unit = TimeUnit.MINUTES) // a longer run's -max_total_time
  void prepareAnswersEveryClaim(FuzzedDataProvider data) throws Exception {
    try (SilentCloseable loopback = loopbackOnly()) {
      if (running == null) {
        running = start();
      }
      new RoundCheck(running, HostileClaims.draw(data)).run();
    }
  }

  /** Jazzer's SSRF detector refuses every connection by default; the mock API is on loopback. */
  private static SilentCloseable loopbackOnly() {
    return BugDetectors.allowNetworkConnections(
        (host, port) -> host.equals("127.0.0.1") || host.equals("localhost"));
  }

  private static Driver start() throws Exception {
    Path base = Files.createTempDirectory("dra-fuzz");
    Path root =
        FakeSysfs.write(
            base.resolve("root"), TestMachines.twoSwitchesAndLoneHca(HostileClaims.NODE));
    DraConfig config =
        DraConfig.parse(
            new String[] {
              "--node-name=" + HostileClaims.NODE,
              "--sysfs-only",
              "--sysfs-root=" + root,
              "--plugin-registry-dir=" + base.resolve("registry"),
              "--plugin-dir=" + base.resolve("plugin"),
              "--cdi-dir=" + base.resolve("cdiroot/cdi"),
              "--device-info-dir=" + base.resolve("devinfo"),
              "--rediscover-interval=0",
              "--ops-port=0"
            },
            Map.of());
    ClaimsApiServer api = new ClaimsApiServer();
    KubernetesClient client = api.client();
    client
        .nodes()
        .resource(
            new NodeBuilder().withNewMetadata().withName(HostileClaims.NODE).endMetadata().build())
        .create();
    Vertx vertx = Vertx.vertx();
    DraDriver driver = await(DraDriver.start(vertx, config, client), Duration.ofMinutes(2));
    DRAPluginGrpcClient kubelet =
        DRAPluginGrpcClient.create(
            KubeletGrpcClient.create(vertx),
            SocketAddress.domainSocketAddress(config.draSocket().toString()));
    Files.createDirectories(base.resolve("outside"));
    return new Driver(base, api, driver, kubelet);
  }

  static <T> T await(Future<T> f, Duration within) throws Exception {
    try {
      return f.toCompletionStage()
          .toCompletableFuture()
          .get(within.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException e) {
      throw new AssertionError("no answer within " + within, e);
    }
  }

  /** One round: set up, the kubelet's calls with their checks, then the cleanup and the probe. */
  private static final class RoundCheck {
    private final Driver d;
    private final Round round;

    /** Claims answered prepared and not since unprepared: UID to the HCAs in their spec. */
    private final Map<String, Set<String>> prepared = new HashMap<>();

    /** Planted files under the driver's names (which it may replace or remove), by file name. */
    private final Set<String> plantedOurs = new HashSet<>();

    /** Foreign files and files outside the directory, with their content, which must not change. */
    private final Map<Path, byte[]> untouchable = new LinkedHashMap<>();

    /** Whether the CDI directory is a plain one again (the round's calls are over). */
    private boolean restored;

    RoundCheck(Driver d, Round round) {
      this.d = d;
      this.round = round;
    }

    void run() throws Exception {
      setUp();
      List<HostileClaim> claims = round.claims();
      prepare(claims);
      if (round.prepareAgain()) {
        tamper();
        prepare(claims);
      }
      unprepare(claims.subList(0, round.unprepare()));
      restoreAndProbe();
    }

    private void setUp() throws IOException, InterruptedException {
      d.api().clear();
      for (HostileClaim c : round.claims()) {
        d.api().answer(c.namespace(), c.name(), c.status(), c.body());
      }
      clean(d.cdiRoot());
      clean(d.outside());
      Files.createDirectories(d.outside());
      Path cdi = d.cdi();
      switch (round.cdi()) {
        case DIRECTORY -> Files.createDirectories(cdi);
        case MISSING -> Files.createDirectories(d.cdiRoot());
        case A_FILE -> {
          Files.createDirectories(d.cdiRoot());
          Files.write(cdi, FOREIGN);
          untouchable.put(cdi, FOREIGN);
        }
        case LINK_TO_A_DIRECTORY -> {
          Files.createDirectories(d.cdiRoot());
          Files.createSymbolicLink(cdi, Files.createDirectories(d.outside().resolve("cdi")));
        }
        case LINK_TO_PROC -> {
          Files.createDirectories(d.cdiRoot());
          Files.createSymbolicLink(cdi, Path.of("/proc/self"));
        }
        case DANGLING_LINK -> {
          Files.createDirectories(d.cdiRoot());
          Files.createSymbolicLink(cdi, d.outside().resolve("gone"));
        }
        case PARENT_A_FILE -> Files.write(d.cdiRoot(), FOREIGN);
      }
      if (round.cdi() == CdiState.DIRECTORY) {
        plant();
      }
    }

    private void plant() throws IOException {
      Path cdi = d.cdi();
      for (int i = 0; i < round.foreignSpecs(); i++) {
        Path f = cdi.resolve(i == 0 ? "nvidia.yaml" : "other-" + i + ".json");
        Files.write(f, FOREIGN);
        untouchable.put(f, FOREIGN);
      }
      for (HostileClaim c : round.claims()) {
        if (c.planted() == Planted.NOTHING || !ClaimRef.isUid(c.uid())) {
          continue;
        }
        String name = ClaimSpec.fileName(c.uid());
        plantedOurs.add(name);
        Path at = cdi.resolve(name);
        if (Files.exists(at, LinkOption.NOFOLLOW_LINKS)) {
          continue; // the same UID twice
        }
        switch (c.planted()) {
          case EMPTY_DIRECTORY -> Files.createDirectory(at);
          case FULL_DIRECTORY -> Files.write(Files.createDirectory(at).resolve("x"), FOREIGN);
          case LINK_OUTSIDE -> Files.createSymbolicLink(at, outsideFile(c.uid()));
          case FOREIGN_CONTENT -> Files.write(at, FOREIGN);
          case LEFTOVER_TEMP -> {
            String temp = "." + name + "123.tmp";
            plantedOurs.add(temp);
            Files.write(cdi.resolve(temp), FOREIGN);
          }
          case NOTHING -> {}
        }
      }
    }

    /** A file outside the CDI directory, which nothing the driver does may change. */
    private Path outsideFile(String uid) throws IOException {
      Path f = d.outside().resolve("target-" + uid);
      Files.write(f, FOREIGN);
      untouchable.put(f, FOREIGN);
      return f;
    }

    private void tamper() throws IOException {
      Tamper t = round.tamper();
      if (t == Tamper.NOTHING || !Files.isDirectory(d.cdi())) {
        return;
      }
      for (String uid : prepared.keySet()) {
        Path spec = d.cdi().resolve(ClaimSpec.fileName(uid));
        if (!Files.isRegularFile(spec, LinkOption.NOFOLLOW_LINKS)) {
          continue;
        }
        Files.delete(spec);
        plantedOurs.add(spec.getFileName().toString());
        switch (t) {
          case A_DIRECTORY -> Files.write(Files.createDirectory(spec).resolve("x"), FOREIGN);
          case LINK_OUTSIDE -> Files.createSymbolicLink(spec, outsideFile(uid));
          case FOREIGN_CONTENT -> Files.write(spec, FOREIGN);
          case DELETED, NOTHING -> {}
        }
      }
    }

    private void prepare(List<HostileClaim> claims) throws Exception {
      NodePrepareResourcesRequest.Builder request = NodePrepareResourcesRequest.newBuilder();
      claims.forEach(c -> request.addClaims(claim(c)));
      NodePrepareResourcesResponse answer =
          call(d.kubelet().nodePrepareResources(request.build()), "Prepare");
      Set<String> published = d.published();
      for (HostileClaim c : lastPerUid(claims)) {
        assertTrue(answer.containsClaims(c.uid()), () -> "no entry for claim " + c.uid());
        NodePrepareResourceResponse entry = answer.getClaimsOrThrow(c.uid());
        if (!entry.getError().isEmpty()) {
          checkError(entry.getError(), c);
          continue;
        }
        Set<String> hcas = new HashSet<>();
        for (Device device : entry.getDevicesList()) {
          String name = device.getDeviceName();
          assertEquals(HostileClaims.NODE, device.getPoolName());
          assertEquals(1, device.getRequestNamesCount(), () -> "request names of " + name);
          assertTrue(published.contains(name), () -> "prepared a device not published: " + name);
          assertTrue(
              resultOf(c, device.getRequestNames(0), name),
              () -> "prepared " + name + ", which is not one of the claim's results");
          assertEquals(
              List.of(ClaimSpec.KIND + "=" + c.uid() + "-" + name), device.getCdiDeviceIdsList());
          hcas.add(name);
        }
        prepared.put(c.uid(), hcas);
        if (!hcas.isEmpty()) {
          checkSpec(d.cdi().resolve(ClaimSpec.fileName(c.uid())), c.uid(), hcas);
        }
      }
      checkDirectory("Prepare");
    }

    /** The claims of a call, the last of each UID only (the answer is a map by UID). */
    private static Iterable<HostileClaim> lastPerUid(List<HostileClaim> claims) {
      Map<String, HostileClaim> last = new LinkedHashMap<>();
      claims.forEach(c -> last.put(c.uid(), c));
      return last.values();
    }

    /** Whether the API server's claim has a result of this driver and node for that device. */
    private static boolean resultOf(HostileClaim c, String request, String device)
        throws IOException {
      JsonNode results =
          JSON.readTree(c.body()).path("status").path("allocation").path("devices").path("results");
      for (JsonNode r : results) {
        if (r.path("driver").asText().equals(HostileClaims.DRIVER)
            && r.path("pool").asText().equals(HostileClaims.NODE)
            && r.path("device").asText().equals(device)
            && r.path("request").asText().equals(request)) {
          return true;
        }
      }
      return false;
    }

    private void unprepare(List<HostileClaim> claims) throws Exception {
      NodeUnprepareResourcesRequest.Builder request = NodeUnprepareResourcesRequest.newBuilder();
      claims.forEach(c -> request.addClaims(claim(c)));
      NodeUnprepareResourcesResponse answer =
          call(d.kubelet().nodeUnprepareResources(request.build()), "Unprepare");
      for (HostileClaim c : lastPerUid(claims)) {
        assertTrue(answer.containsClaims(c.uid()), () -> "no entry for claim " + c.uid());
        String error = answer.getClaimsOrThrow(c.uid()).getError();
        if (error.isEmpty()) {
          prepared.remove(c.uid());
          assertFalse(
              Files.isRegularFile(d.cdi().resolve(ClaimSpec.fileName(c.uid()))),
              () -> "unprepared, but its spec is still there: " + c.uid());
        } else {
          checkError(error, c);
        }
      }
      checkDirectory("Unprepare");
    }

    private static Claim claim(HostileClaim c) {
      return Claim.newBuilder()
          .setNamespace(c.namespace())
          .setUid(c.uid())
          .setName(c.name())
          .build();
    }

    private <T> T call(Future<T> f, String what) throws Exception {
      try {
        return await(f, ANSWER_WITHIN);
      } catch (ExecutionException e) {
        throw new AssertionError(what + " failed as a call: " + e.getCause(), e.getCause());
      }
    }

    private static void checkError(String error, HostileClaim c) {
      String ref = new ClaimRef(c.namespace(), c.uid(), c.name()).toString();
      assertTrue(error.contains(ref), () -> "the error does not name claim " + ref + ": " + error);
      assertTrue(
          error.length() <= MAX_ERROR_CHARS, () -> "an error of " + error.length() + " chars");
      assertFalse(
          JAVA_EXCEPTION.matcher(error).find(), () -> "an exception escaped into: " + error);
    }

    /**
     * The CDI directory holds complete specs of prepared claims, the planted files and the
     * untouched foreign files, nothing else.
     */
    private void checkDirectory(String after) throws IOException {
      untouchable.forEach(
          (f, content) -> {
            try {
              assertTrue(
                  Arrays.equals(content, Files.readAllBytes(f)),
                  () -> f + " was changed by " + after);
            } catch (IOException e) {
              throw new AssertionError(f + " is gone after " + after, e);
            }
          });
      if (!Files.isDirectory(d.cdi()) || !restored && round.cdi() == CdiState.LINK_TO_PROC) {
        return; // no CDI directory, or one that is not the driver's to fill
      }
      try (Stream<Path> files = Files.list(d.cdi())) {
        for (Path f : files.toList()) {
          String name = f.getFileName().toString();
          if (untouchable.containsKey(f) || plantedOurs.contains(name)) {
            continue;
          }
          String uid = uidOf(name);
          assertTrue(
              uid != null && prepared.containsKey(uid),
              () ->
                  "after " + after + ", the CDI directory holds " + name + " of no prepared claim");
          checkSpec(f, uid, prepared.get(uid));
        }
      }
    }

    private static String uidOf(String fileName) {
      String prefix = ClaimSpec.fileName("");
      prefix = prefix.substring(0, prefix.length() - ".json".length());
      return fileName.startsWith(prefix) && fileName.endsWith(".json")
          ? fileName.substring(prefix.length(), fileName.length() - ".json".length())
          : null;
    }

    private static void checkSpec(Path f, String uid, Set<String> hcas) throws IOException {
      assertTrue(Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS), () -> f + " is not a file");
      JsonNode spec = JSON.readTree(f.toFile());
      assertEquals(ClaimSpec.KIND, spec.path("kind").asText(), () -> f + ": " + spec);
      Set<String> names = new HashSet<>();
      spec.path("devices").forEach(n -> names.add(n.path("name").asText()));
      Set<String> expected = new HashSet<>();
      hcas.forEach(h -> expected.add(uid + "-" + h));
      assertEquals(expected, names, () -> f + " does not name the claim's HCAs");
    }

    /**
     * Restores the directory, unprepares every claim (each must succeed or be refused naming it),
     * then prepares and unprepares a plain claim.
     */
    private void restoreAndProbe() throws Exception {
      restored = true;
      clean(d.cdiRoot());
      Files.createDirectories(d.cdi());
      untouchable.clear();
      plantedOurs.clear();
      unprepare(round.claims());
      for (HostileClaim c : round.claims()) {
        if (ClaimRef.isUid(c.uid())) {
          assertFalse(prepared.containsKey(c.uid()), () -> "not unprepared: " + c);
        }
      }
      try (Stream<Path> left = Files.list(d.cdi())) {
        assertEquals(List.of(), left.toList(), "files left after every claim was unprepared");
      }
      probe();
    }

    /** A plain claim of one HCA is prepared and unprepared: the driver still answers. */
    private void probe() throws Exception {
      String uid = "0b0e5d7a-0000-4000-8000-0000000fffff";
      byte[] body =
          ("{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\",\"metadata\":"
                  + "{\"namespace\":\"probe\",\"name\":\"plain\",\"uid\":\""
                  + uid
                  + "\"},\"status\":{\"allocation\":{\"devices\":{\"results\":[{\"request\":\"hcas\","
                  + "\"driver\":\"tandem.dev\",\"pool\":\"n1\",\"device\":\"mlx5-0\"}]}}}}")
              .getBytes(StandardCharsets.UTF_8);
      d.api().answer("probe", "plain", 200, body);
      HostileClaim plain = new HostileClaim("probe", uid, "plain", Planted.NOTHING, 200, body);
      prepare(List.of(plain));
      assertEquals(Set.of("mlx5-0"), prepared.get(uid), "the plain claim was not prepared");
      unprepare(List.of(plain));
      try (Stream<Path> left = Files.list(d.cdi())) {
        assertEquals(List.of(), left.toList(), "files left after the plain claim");
      }
    }
  }

  /** Removes a file or a directory tree without following links. */
  static void clean(Path p) {
    if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> all = Files.walk(p)) {
      for (Path f : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(f);
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
