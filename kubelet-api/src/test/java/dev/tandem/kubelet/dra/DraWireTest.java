package dev.tandem.kubelet.dra;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Descriptors.ServiceDescriptor;
import dev.tandem.kubelet.dra.v1.Claim;
import dev.tandem.kubelet.dra.v1.DRAPluginGrpcService;
import dev.tandem.kubelet.dra.v1.Device;
import dev.tandem.kubelet.dra.v1.NodePrepareResourceResponse;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodePrepareResourcesResponse;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourceResponse;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesRequest;
import dev.tandem.kubelet.dra.v1.NodeUnprepareResourcesResponse;
import dev.tandem.kubelet.drahealth.v1.DRAResourceHealthGrpcService;
import dev.tandem.kubelet.drahealth.v1.DeviceHealth;
import dev.tandem.kubelet.drahealth.v1.DeviceIdentifier;
import dev.tandem.kubelet.drahealth.v1.NodeWatchResourcesResponse;
import dev.tandem.kubelet.pluginregistration.v1.PluginInfo;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationGrpcService;
import dev.tandem.kubelet.pluginregistration.v1.RegistrationStatus;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The DRA protos against the upstream definitions, table by table (docs/dra.md, "Wire"): the gRPC
 * method paths the kubelet calls and every field's number, name and type. A change to a .proto that
 * would break the wire fails here.
 */
@DisplayName("kubelet DRA, health and plugin-registration protos: the upstream wire")
class DraWireTest {

  @Test
  @DisplayName("method paths are the ones the kubelet dials")
  void methodPaths() {
    assertEquals(
        List.of(
            "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources",
            "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodeUnprepareResources"),
        methods(DRAPluginGrpcService.SERVICE_DESCRIPTOR));
    assertEquals(
        List.of(
            "pluginregistration.Registration/GetInfo",
            "pluginregistration.Registration/NotifyRegistrationStatus"),
        methods(RegistrationGrpcService.SERVICE_DESCRIPTOR));
    assertEquals(
        List.of("v1.DRAResourceHealth/NodeWatchResources"),
        methods(DRAResourceHealthGrpcService.SERVICE_DESCRIPTOR));
    assertEquals(
        "k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/NodePrepareResources",
        DRAPluginGrpcService.NodePrepareResources.fullMethodName());
  }

  @Test
  @DisplayName("DRA v1 messages: field numbers, names and types")
  void draMessages() {
    assertEquals(
        Map.of("claims", "1 repeated MESSAGE Claim"),
        fields(NodePrepareResourcesRequest.getDescriptor()));
    assertEquals(
        Map.of("claims", "1 repeated MESSAGE ClaimsEntry"),
        fields(NodePrepareResourcesResponse.getDescriptor()));
    assertEquals(
        Map.of("key", "1 STRING", "value", "2 MESSAGE NodePrepareResourceResponse"),
        fields(NodePrepareResourcesResponse.getDescriptor().findNestedTypeByName("ClaimsEntry")));
    assertEquals(
        Map.of("devices", "1 repeated MESSAGE Device", "error", "2 STRING"),
        fields(NodePrepareResourceResponse.getDescriptor()));
    assertEquals(
        Map.of(
            "request_names", "1 repeated STRING",
            "pool_name", "2 STRING",
            "device_name", "3 STRING",
            "cdi_device_ids", "4 repeated STRING"),
        fields(Device.getDescriptor()));
    assertEquals(
        Map.of("claims", "1 repeated MESSAGE Claim"),
        fields(NodeUnprepareResourcesRequest.getDescriptor()));
    assertEquals(
        Map.of("key", "1 STRING", "value", "2 MESSAGE NodeUnprepareResourceResponse"),
        fields(NodeUnprepareResourcesResponse.getDescriptor().findNestedTypeByName("ClaimsEntry")));
    assertEquals(
        Map.of("error", "1 STRING"), fields(NodeUnprepareResourceResponse.getDescriptor()));
    assertEquals(
        Map.of("namespace", "1 STRING", "uid", "2 STRING", "name", "3 STRING"),
        fields(Claim.getDescriptor()));
    assertEquals("k8s.io.kubelet.pkg.apis.dra.v1.Claim", Claim.getDescriptor().getFullName());
  }

  @Test
  @DisplayName("plugin registration v1 messages: field numbers, names and types")
  void registrationMessages() {
    assertEquals(
        Map.of(
            "type", "1 STRING",
            "name", "2 STRING",
            "endpoint", "3 STRING",
            "supported_versions", "4 repeated STRING"),
        fields(PluginInfo.getDescriptor()));
    assertEquals(
        Map.of("plugin_registered", "1 BOOL", "error", "2 STRING"),
        fields(RegistrationStatus.getDescriptor()));
    assertEquals("pluginregistration.PluginInfo", PluginInfo.getDescriptor().getFullName());
  }

  @Test
  @DisplayName("DRA health v1 messages: field numbers, names and types")
  void healthMessages() {
    assertEquals(
        Map.of("devices", "1 repeated MESSAGE DeviceHealth"),
        fields(NodeWatchResourcesResponse.getDescriptor()));
    assertEquals(
        Map.of(
            "device", "1 MESSAGE DeviceIdentifier",
            "health", "2 ENUM",
            "last_updated_time", "3 INT64",
            "health_check_timeout_seconds", "4 INT64",
            "message", "5 STRING"),
        fields(DeviceHealth.getDescriptor()));
    assertEquals(
        Map.of("pool_name", "1 STRING", "device_name", "2 STRING"),
        fields(DeviceIdentifier.getDescriptor()));
    assertEquals(
        "UNKNOWN=0,HEALTHY=1,UNHEALTHY=2",
        DeviceHealth.getDescriptor().findFieldByName("health").getEnumType().getValues().stream()
            .map(v -> v.getName() + "=" + v.getNumber())
            .collect(Collectors.joining(",")));
  }

  private static List<String> methods(ServiceDescriptor service) {
    return service.getMethods().stream()
        .map(m -> service.getFullName() + "/" + m.getName())
        .toList();
  }

  private static Map<String, String> fields(Descriptor message) {
    Map<String, String> out = new LinkedHashMap<>();
    for (FieldDescriptor f : message.getFields()) {
      String type = f.getType().name();
      if (f.getType() == FieldDescriptor.Type.MESSAGE) {
        type += " " + f.getMessageType().getName();
      }
      out.put(f.getName(), f.getNumber() + " " + (f.isRepeated() ? "repeated " : "") + type);
    }
    return out;
  }
}
