package dev.tandem.dra.publish;

import dev.tandem.api.dra.AttributeValue;
import dev.tandem.dra.slices.ConsumableCapacity;
import dev.tandem.dra.slices.NodePool;
import dev.tandem.dra.slices.PublishedDevice;
import dev.tandem.dra.slices.Taint;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.resource.v1.Device;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttribute;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceAttributeBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacity;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceCapacityBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaint;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceTaintBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpec;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSliceSpecBuilder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * The pool's slices in fabric8's {@code resource.k8s.io/v1} model: one {@link ResourceSliceSpec}
 * per slice, the comparison that says whether what the API server holds already is that, and the
 * fingerprint of what the driver wrote.
 */
final class SliceContent {

  private SliceContent() {}

  /**
   * Slice {@code index} of {@code pool} at pool generation {@code generation}: its name, the
   * {@linkplain #fingerprint fingerprint} of its spec, the spec; no owner, no resource version.
   */
  static ResourceSlice slice(NodePool pool, int index, long generation) {
    ResourceSliceSpec spec = spec(pool, index, generation);
    return new ResourceSliceBuilder()
        .withNewMetadata()
        .withName(pool.sliceName(index))
        .addToAnnotations(SlicePublisher.FINGERPRINT, fingerprint(spec))
        .endMetadata()
        .withSpec(spec)
        .build();
  }

  /** The spec of slice {@code index} of {@code pool} at pool generation {@code generation}. */
  static ResourceSliceSpec spec(NodePool pool, int index, long generation) {
    List<List<PublishedDevice>> slices = pool.slices();
    return new ResourceSliceSpecBuilder()
        .withDriver(pool.driver())
        .withNodeName(pool.nodeName())
        .withNewPool()
        .withName(pool.poolName())
        .withGeneration(generation)
        .withResourceSliceCount((long) slices.size())
        .endPool()
        .withDevices(slices.get(index).stream().map(SliceContent::device).toList())
        .build();
  }

  /**
   * Whether a spec the API server holds says what {@code wanted} says: the same driver, node, pool
   * name, slice count and devices, {@code ignoring} the fields named. The pool generation is not
   * compared (it is the caller's), nor the time the API server stamps on a taint.
   */
  static boolean same(
      ResourceSliceSpec held, ResourceSliceSpec wanted, Set<DroppedField> ignoring) {
    if (held == null || held.getPool() == null) {
      return false;
    }
    return wanted.getDriver().equals(held.getDriver())
        && wanted.getNodeName().equals(held.getNodeName())
        && wanted.getPool().getName().equals(held.getPool().getName())
        && wanted.getPool().getResourceSliceCount().equals(held.getPool().getResourceSliceCount())
        && devices(wanted.getDevices(), ignoring).equals(devices(held.getDevices(), ignoring));
  }

  /**
   * The fields {@code wanted} has on some device and {@code held} (what the API server kept of a
   * write of it) has on none: what a server with the field's feature gate off drops.
   */
  static Set<DroppedField> dropped(ResourceSliceSpec held, ResourceSliceSpec wanted) {
    Set<DroppedField> out = EnumSet.noneOf(DroppedField.class);
    List<Device> kept = held == null ? null : held.getDevices();
    if (anyDevice(wanted.getDevices(), SliceContent::tainted)
        && !anyDevice(kept, SliceContent::tainted)) {
      out.add(DroppedField.DEVICE_TAINTS);
    }
    if (anyDevice(wanted.getDevices(), SliceContent::shared)
        && !anyDevice(kept, SliceContent::shared)) {
      out.add(DroppedField.CONSUMABLE_CAPACITY);
    }
    return out;
  }

  /**
   * A digest of everything {@link #same} compares in {@code wanted} (not the generation): what the
   * driver wrote, kept on the slice, so that a field the API server dropped is not taken for a
   * change, even by a restarted driver.
   */
  static String fingerprint(ResourceSliceSpec wanted) {
    String canonical =
        List.of(
                wanted.getDriver(),
                wanted.getNodeName(),
                wanted.getPool().getName(),
                wanted.getPool().getResourceSliceCount(),
                devices(wanted.getDevices(), Set.of()))
            .toString();
    try {
      byte[] digest =
          MessageDigest.getInstance("SHA-256").digest(canonical.getBytes(StandardCharsets.UTF_8));
      return "sha256:" + HexFormat.of().formatHex(digest);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("this JVM has no SHA-256, which every JVM must have", e);
    }
  }

  private static boolean anyDevice(List<Device> devices, Predicate<Device> test) {
    return devices != null && devices.stream().anyMatch(test);
  }

  private static boolean tainted(Device d) {
    return d.getTaints() != null && !d.getTaints().isEmpty();
  }

  private static boolean shared(Device d) {
    return d.getAllowMultipleAllocations() != null
        || (d.getCapacity() != null
            && d.getCapacity().values().stream().anyMatch(c -> c.getRequestPolicy() != null));
  }

  /**
   * Devices as comparable values: name, attributes as {@code kind:value} by name, taints as {@code
   * key=value:effect}, whether many claims may hold it, capacities as {@code value/default} by
   * name; the fields {@code ignoring} names left out. fabric8's own equality tells an empty list
   * from an absent one, which the API server does not; and the API server writes quantities in its
   * canonical form ({@code 1000} as {@code 1k}), so they are compared as numbers.
   */
  private static List<List<Object>> devices(List<Device> devices, Set<DroppedField> ignoring) {
    boolean taints = !ignoring.contains(DroppedField.DEVICE_TAINTS);
    boolean sharing = !ignoring.contains(DroppedField.CONSUMABLE_CAPACITY);
    List<List<Object>> out = new ArrayList<>();
    for (Device d : devices == null ? List.<Device>of() : devices) {
      Map<String, String> attributes = new TreeMap<>();
      if (d.getAttributes() != null) {
        d.getAttributes().forEach((name, a) -> attributes.put(name, text(a)));
      }
      List<String> taintTexts = new ArrayList<>();
      if (taints && d.getTaints() != null) {
        d.getTaints()
            .forEach(t -> taintTexts.add(t.getKey() + "=" + t.getValue() + ":" + t.getEffect()));
      }
      Map<String, String> capacity = new TreeMap<>();
      if (d.getCapacity() != null) {
        d.getCapacity().forEach((name, c) -> capacity.put(name, text(c, sharing)));
      }
      boolean shared = sharing && Boolean.TRUE.equals(d.getAllowMultipleAllocations());
      out.add(List.of(d.getName(), attributes, taintTexts, shared, capacity));
    }
    return out;
  }

  private static String text(DeviceAttribute a) {
    if (a.getString() != null) {
      return "string:" + a.getString();
    }
    if (a.getInt() != null) {
      return "int:" + a.getInt();
    }
    if (a.getBool() != null) {
      return "bool:" + a.getBool();
    }
    return "version:" + a.getVersion();
  }

  private static String text(DeviceCapacity c, boolean withPolicy) {
    String policy =
        !withPolicy || c.getRequestPolicy() == null
            ? ""
            : "/" + number(c.getRequestPolicy().getDefault());
    return number(c.getValue()) + policy;
  }

  private static String number(Quantity q) {
    return q == null ? "" : q.getNumericalAmount().stripTrailingZeros().toPlainString();
  }

  private static Device device(PublishedDevice d) {
    Map<String, DeviceAttribute> attributes = new LinkedHashMap<>();
    d.attributes().forEach((name, value) -> attributes.put(name, attribute(value)));
    DeviceBuilder b =
        new DeviceBuilder()
            .withName(d.name())
            .withAttributes(attributes)
            .withTaints(d.taints().stream().map(SliceContent::taint).toList());
    if (d.allowMultipleAllocations()) {
      Map<String, DeviceCapacity> capacity = new LinkedHashMap<>();
      d.capacity().forEach((name, c) -> capacity.put(name, capacity(c)));
      b.withAllowMultipleAllocations(true).withCapacity(capacity);
    }
    return b.build();
  }

  private static DeviceCapacity capacity(ConsumableCapacity c) {
    return new DeviceCapacityBuilder()
        .withValue(new Quantity(Long.toString(c.value())))
        .withNewRequestPolicy()
        .withDefault(new Quantity(Long.toString(c.requestDefault())))
        .endRequestPolicy()
        .build();
  }

  private static DeviceTaint taint(Taint t) {
    return new DeviceTaintBuilder()
        .withKey(t.key())
        .withValue(t.value())
        .withEffect(t.effect())
        .build();
  }

  private static DeviceAttribute attribute(AttributeValue v) {
    return new DeviceAttributeBuilder()
        .withString(v.string())
        .withInt(v.integer())
        .withBool(v.bool())
        .withVersion(v.version())
        .build();
  }
}
