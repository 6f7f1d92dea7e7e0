package dev.tandem.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.dra.claims.ApiServerClaims;
import dev.tandem.dra.publish.GpuPublishers;
import dev.tandem.dra.publish.SlicePublisher;
import dev.tandem.dra.slices.PoolBuilder;
import dev.tandem.dra.slices.PoolSpec;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.fixtures.TestMachines.Switch;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The driver's calls to the API server, recorded by fabric8's mock server, are exactly the grants
 * docs/operations.md lists for the ServiceAccount tandem-dra-driver; the scheduler-extender's
 * RbacTest holds the shipped RBAC to that same table. So a call added without its grant (or a grant
 * left after its call went) fails here.
 */
@EnableKubernetesMockClient(crud = true)
class ApiCallsMockTest {

  static KubernetesClient client;
  static KubernetesMockServer server;

  private static final Pattern RESOURCE =
      Pattern.compile("^/apis?/(?:([^/]+)/)?v1/(?:namespaces/[^/]+/)?([a-z]+)(/[^/]+)?$");
  private static final Pattern GRANT_ROW = Pattern.compile("^\\| `([^`]+)` \\|");

  @Test
  @DisplayName(
      "publishing (create, unchanged, update, delete), reading claims and joint mode's check for"
          + " other GPU publishers call exactly the documented grants")
  void callsAreTheDocumentedGrants() throws Exception {
    client
        .nodes()
        .resource(new NodeBuilder().withNewMetadata().withName("n").endMetadata().build())
        .create();
    client
        .dynamicResourceAllocation()
        .v1()
        .resourceClaims()
        .inNamespace("team")
        .resource(
            new ResourceClaimBuilder()
                .withNewMetadata()
                .withName("c")
                .endMetadata()
                .withNewSpec()
                .endSpec()
                .build())
        .create();
    recorded();

    SlicePublisher publisher = new SlicePublisher(client);
    var big =
        TestMachines.machine(
            "n",
            new Switch(0, 0, 26),
            new Switch(0, 0, 26),
            new Switch(0, 0, 26),
            new Switch(1, 0, 26),
            new Switch(1, 0, 26));
    assertEquals(2, publisher.publish(PoolBuilder.build(big, PoolSpec.joint())).created());
    assertTrue(publisher.publish(PoolBuilder.build(big, PoolSpec.joint())).unchanged());
    var small = TestMachines.machine("n", new Switch(0, 2, 2));
    SlicePublisher.Outcome shrunk = publisher.publish(PoolBuilder.build(small, PoolSpec.joint()));
    assertEquals(1, shrunk.updated());
    assertEquals(1, shrunk.deleted());
    ApiServerClaims claims = new ApiServerClaims(client);
    assertTrue(claims.claim("team", "c").isPresent());
    assertTrue(claims.claim("team", "gone").isEmpty());
    assertEquals(List.of(), new GpuPublishers(client).others("n"));

    assertEquals(documented(), recorded());
  }

  /** The requests recorded since the last call, as "group/resource verb". */
  private static Set<String> recorded() throws InterruptedException {
    Set<String> out = new TreeSet<>();
    for (RecordedRequest r = server.takeRequest(0, TimeUnit.SECONDS);
        r != null;
        r = server.takeRequest(0, TimeUnit.SECONDS)) {
      String path = r.getPath().replaceFirst("\\?.*", "");
      Matcher m = RESOURCE.matcher(path);
      if (!m.matches()) {
        out.add("unexpected " + r.getMethod() + " " + path);
        continue;
      }
      String group = m.group(1) == null ? "" : m.group(1);
      boolean named = m.group(3) != null;
      out.add(group + "/" + m.group(2) + " " + verb(r.getMethod(), named, r.getPath()));
    }
    return out;
  }

  private static String verb(String method, boolean named, String path) {
    return switch (method) {
      case "GET" -> named ? "get" : path.contains("watch=true") ? "watch" : "list";
      case "POST" -> "create";
      case "PUT" -> "update";
      case "PATCH" -> "patch";
      case "DELETE" -> named ? "delete" : "deletecollection";
      default -> method;
    };
  }

  /** The grants docs/operations.md lists for tandem-dra-driver. */
  private static Set<String> documented() throws Exception {
    String doc = Files.readString(Path.of("../docs/operations.md"));
    int start = doc.indexOf("\n**tandem-dra-driver**");
    assertTrue(start >= 0, "docs/operations.md has no table for tandem-dra-driver");
    int end = doc.indexOf("\n**", start + 1);
    Set<String> out = new TreeSet<>();
    for (String line : doc.substring(start, end).split("\n")) {
      Matcher m = GRANT_ROW.matcher(line);
      if (m.find()) {
        out.add(m.group(1));
      }
    }
    return out;
  }
}
