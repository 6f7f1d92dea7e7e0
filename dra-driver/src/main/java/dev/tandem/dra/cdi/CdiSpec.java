package dev.tandem.dra.cdi;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * A Container Device Interface spec, as container runtimes read it from {@code /etc/cdi} or {@code
 * /var/run/cdi} (tags.cncf.io/container-device-interface, {@code specs-go/config.go}): a kind
 * ({@code vendor/class}), devices each with the edits a container gets when it is given that
 * device, and edits every container given any device of the spec gets once.
 *
 * @param cdiVersion the spec version the content needs ({@link #VERSION})
 * @param kind {@code tandem.dev/hca}
 * @param devices named devices and their edits
 * @param containerEdits edits applied once when any device of this spec is injected
 */
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record CdiSpec(
    @JsonProperty("cdiVersion") String cdiVersion,
    @JsonProperty("kind") String kind,
    @JsonProperty("devices") List<Named> devices,
    @JsonProperty("containerEdits") Edits containerEdits) {

  /**
   * The version written: the lowest whose features the content uses (device names that may start
   * with a digit and {@code hostPath} in device nodes came in 0.5.0), so that every CDI library a
   * supported runtime ships reads it; the specification's current version is 0.8.0 (docs/dra.md).
   */
  public static final String VERSION = "0.5.0";

  public CdiSpec {
    devices = List.copyOf(devices);
  }

  /** One device of the spec: {@code <kind>=<name>} names it in a container's CDI devices. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Named(
      @JsonProperty("name") String name, @JsonProperty("containerEdits") Edits containerEdits) {}

  /**
   * Edits to a container: environment ({@code NAME=value}) and device nodes.
   *
   * @param env {@code NAME=value} entries
   * @param deviceNodes character devices to create in the container and allow in its cgroup
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Edits(
      @JsonProperty("env") List<String> env,
      @JsonProperty("deviceNodes") List<DeviceNode> deviceNodes) {

    public Edits {
      env = List.copyOf(env);
      deviceNodes = List.copyOf(deviceNodes);
    }
  }

  /**
   * A device node: the path in the container, the host's path, the cgroup permissions.
   *
   * @param path in the container
   * @param hostPath on the host
   * @param permissions {@code r}, {@code w} and {@code m} as the cgroup device rule takes them
   */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record DeviceNode(
      @JsonProperty("path") String path,
      @JsonProperty("hostPath") String hostPath,
      @JsonProperty("permissions") String permissions) {}
}
