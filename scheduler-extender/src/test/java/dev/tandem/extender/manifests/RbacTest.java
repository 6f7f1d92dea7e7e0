package dev.tandem.extender.manifests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.extender.manifests.ManifestFiles.Document;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Least privilege, exactly: each component's grants, written out as "group/resource verb" with
 * "@name" for a resourceNames restriction and "[namespace]" for a namespaced Role, are the rows of
 * its table in docs/operations.md ("What each service account may do"), no more and no fewer.
 */
class RbacTest {

  private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();

  @Test
  @DisplayName(
      "the agent writes only NodeTopology objects (and their status) and Events, lists pods and gets its Node")
  void agent() {
    assertEquals(
        documented("tandem-node-topology-agent"),
        grants("base/rbac-node-topology-agent.yaml", "tandem-node-topology-agent"));
  }

  @Test
  @DisplayName("the device plugin lists pods and gets its Node")
  void devicePlugin() {
    assertEquals(
        documented("tandem-device-plugin"),
        grants("base/rbac-device-plugin.yaml", "tandem-device-plugin"));
  }

  @Test
  @DisplayName(
      "the DRA driver gets, creates, updates and deletes ResourceSlices, gets ResourceClaims and its Node")
  void draDriver() {
    assertEquals(
        documented("tandem-dra-driver"),
        grants("overlays/dra/rbac-dra-driver.yaml", "tandem-dra-driver"));
  }

  @Test
  @DisplayName(
      "the extender lists and watches NodeTopology, pods and nodes, gets pods (never patches them: the plan rides on the Binding), creates pods/binding and Events, and patches its one Lease")
  void extender() {
    assertEquals(
        documented("tandem-scheduler-extender"),
        grants("base/rbac-scheduler-extender.yaml", "tandem-scheduler-extender"));
  }

  @Test
  @DisplayName(
      "the second scheduler has the built-in scheduler roles plus its own Lease and the authentication reader")
  void secondScheduler() {
    assertEquals(
        documented("tandem-scheduler"),
        grants("scheduler/second-scheduler/rbac.yaml", "tandem-scheduler"));
  }

  /** The grants docs/operations.md lists for the service account {@code account}. */
  private static Set<String> documented(String account) {
    String section =
        DocText.section(DocText.read("docs/operations.md"), "## What each service account may do");
    int start = section.indexOf("\n**" + account + "**");
    if (start < 0) {
      throw new AssertionError("operations.md has no table for " + account);
    }
    int end = section.indexOf("\n**", start + 1);
    String table = section.substring(start, end < 0 ? section.length() : end);
    return DocText.firstColumn(table, Pattern.compile("^ `([^`]+)` $"));
  }

  /**
   * What the ServiceAccount tandem-system/{@code account} may do, from the roles its bindings in
   * {@code file} name.
   */
  private static Set<String> grants(String file, String account) {
    List<Object> objects = new ArrayList<>();
    for (Document d : ManifestFiles.documents(ManifestFiles.ROOT.resolve(file))) {
      objects.add(FABRIC8.convertValue(d.node(), KubernetesResource.class));
    }
    Set<String> out = new TreeSet<>();
    for (Object o : objects) {
      if (o instanceof ClusterRoleBinding b && bindsAccount(b.getSubjects(), account)) {
        ClusterRole role = find(objects, ClusterRole.class, b.getRoleRef().getName());
        if (role == null) {
          out.add("clusterrole " + b.getRoleRef().getName());
        } else {
          role.getRules().forEach(r -> add(out, r, ""));
        }
      } else if (o instanceof RoleBinding b && bindsAccount(b.getSubjects(), account)) {
        String ns = " [" + b.getMetadata().getNamespace() + "]";
        Role role = find(objects, Role.class, b.getRoleRef().getName());
        if (role == null) {
          out.add(b.getRoleRef().getKind().toLowerCase() + " " + b.getRoleRef().getName() + ns);
        } else {
          assertEquals(
              b.getMetadata().getNamespace(),
              role.getMetadata().getNamespace(),
              "Role and RoleBinding namespaces");
          role.getRules().forEach(r -> add(out, r, ns));
        }
      }
    }
    return out;
  }

  private static boolean bindsAccount(List<Subject> subjects, String account) {
    return subjects.stream()
        .anyMatch(
            s ->
                s.getKind().equals("ServiceAccount")
                    && s.getName().equals(account)
                    && "tandem-system".equals(s.getNamespace()));
  }

  private static <T extends HasMetadata> T find(List<Object> objects, Class<T> type, String name) {
    return objects.stream()
        .filter(type::isInstance)
        .map(type::cast)
        .filter(r -> r.getMetadata().getName().equals(name))
        .findFirst()
        .orElse(null);
  }

  private static void add(Set<String> out, PolicyRule r, String ns) {
    for (String g : r.getApiGroups()) {
      for (String res : r.getResources()) {
        for (String v : r.getVerbs()) {
          if (r.getResourceNames() == null || r.getResourceNames().isEmpty()) {
            out.add(g + "/" + res + " " + v + ns);
          } else {
            r.getResourceNames().forEach(n -> out.add(g + "/" + res + " " + v + " @" + n + ns));
          }
        }
      }
    }
  }
}
