package dev.tandem.api.crd;

import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** The shipped CRD, read from {@code manifests/crd/}, so tests exercise what operators install. */
public final class CrdFile {

  public static final Path PATH =
      Path.of("..", "manifests", "crd", "nodetopologies.tandem.dev.yaml");

  private CrdFile() {}

  public static CustomResourceDefinition read() {
    try (InputStream in = Files.newInputStream(PATH)) {
      return Serialization.unmarshal(in, CustomResourceDefinition.class);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + PATH.toAbsolutePath(), e);
    }
  }

  /**
   * Installs the CRD into a (mock) API server, once, and removes the NodeTopology objects and Nodes
   * earlier tests of the class left behind (the mock server lives as long as the test class).
   */
  public static void install(KubernetesClient client) {
    var crds = client.apiextensions().v1().customResourceDefinitions();
    if (crds.withName(NodeTopology.CRD_NAME).get() == null) {
      crds.resource(read()).create();
    }
    client.resources(NodeTopology.class).delete();
    client.nodes().delete();
  }
}
