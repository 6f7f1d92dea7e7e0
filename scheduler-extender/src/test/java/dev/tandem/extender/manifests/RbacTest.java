package dev.tandem.extender.manifests;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.extender.manifests.ManifestFiles.Document;
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
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Least privilege, exactly: each component's grants written out as "group/resource verb", with
 * "@name" for a resourceNames restriction and "[namespace]" for a namespaced Role.
 */
class RbacTest {

  private static final KubernetesSerialization FABRIC8 = new KubernetesSerialization();

  @Test
  @DisplayName(
      "the agent writes only NodeTopology objects (and their status) and Events, lists pods and gets its Node")
  void agent() {
    assertEquals(
        Set.of(
            "tandem.dev/nodetopologies get",
            "tandem.dev/nodetopologies create",
            "tandem.dev/nodetopologies update",
            "tandem.dev/nodetopologies/status update",
            "/pods list",
            "/nodes get",
            "/events create"),
        grants("base/rbac-node-topology-agent.yaml", "tandem-node-topology-agent"));
  }

  @Test
  @DisplayName("the device plugin only lists pods")
  void devicePlugin() {
    assertEquals(
        Set.of("/pods list"), grants("base/rbac-device-plugin.yaml", "tandem-device-plugin"));
  }

  @Test
  @DisplayName(
      "the extender lists and watches NodeTopology, pods and nodes, gets pods (never patches them: the plan rides on the Binding), creates pods/binding and Events, and patches its one Lease")
  void extender() {
    assertEquals(
        Set.of(
            "tandem.dev/nodetopologies list",
            "tandem.dev/nodetopologies watch",
            "/pods get",
            "/pods list",
            "/pods watch",
            "/pods/binding create",
            "/nodes list",
            "/nodes watch",
            "/events create",
            "coordination.k8s.io/leases create [tandem-system]",
            "coordination.k8s.io/leases get @tandem-scheduler-extender [tandem-system]",
            "coordination.k8s.io/leases patch @tandem-scheduler-extender [tandem-system]"),
        grants("base/rbac-scheduler-extender.yaml", "tandem-scheduler-extender"));
  }

  @Test
  @DisplayName(
      "the second scheduler has the built-in scheduler roles plus its own Lease and the authentication reader")
  void secondScheduler() {
    assertEquals(
        Set.of(
            "clusterrole system:kube-scheduler",
            "clusterrole system:volume-scheduler",
            "role extension-apiserver-authentication-reader [kube-system]",
            "coordination.k8s.io/leases create [tandem-system]",
            "coordination.k8s.io/leases get @tandem-scheduler [tandem-system]",
            "coordination.k8s.io/leases update @tandem-scheduler [tandem-system]"),
        grants("scheduler/second-scheduler/rbac.yaml", "tandem-scheduler"));
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

  private static <T extends io.fabric8.kubernetes.api.model.HasMetadata> T find(
      List<Object> objects, Class<T> type, String name) {
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
