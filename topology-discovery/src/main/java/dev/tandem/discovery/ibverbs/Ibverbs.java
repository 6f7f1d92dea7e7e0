package dev.tandem.discovery.ibverbs;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import dev.tandem.discovery.DataDirectTies;
import dev.tandem.discovery.Discovery;
import dev.tandem.discovery.read.DeviceRules;
import dev.tandem.topology.model.Device;
import dev.tandem.topology.model.DeviceKind;
import dev.tandem.topology.model.HcaInfo;
import dev.tandem.topology.model.Machine;
import dev.tandem.topology.model.PciAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Port states from libibverbs, and each mlx5 device's Data Direct function from libmlx5 ({@link
 * #dataDirect}), for HCAs on real hardware. A machine without RDMA devices ({@code
 * ibv_get_device_list} returns NULL with errno ENOSYS, or an empty list) reports none; a missing
 * library is a note, never an error. The library is loaded on first use and held by this instance.
 */
public final class Ibverbs {

  /** What libibverbs reports per device: port 1's state and link layer. */
  record Port(String state, String linkLayer) {}

  private static final int LINK_LAYER_OFFSET = 46;
  private static final int ENOSYS = 38;

  private final String libraryName;
  private final String mlx5Name;
  private IbverbsLibrary library;

  /** The system's libibverbs and libmlx5. */
  public Ibverbs() {
    this("ibverbs", "mlx5");
  }

  Ibverbs(String libraryName) {
    this(libraryName, "mlx5");
  }

  Ibverbs(String libraryName, String mlx5Name) {
    this.libraryName = libraryName;
    this.mlx5Name = mlx5Name;
  }

  /** Loads libibverbs on first use; null while it cannot be loaded (tried again next time). */
  private synchronized IbverbsLibrary library() {
    if (library == null) {
      try {
        library = Native.load(libraryName, IbverbsLibrary.class);
      } catch (UnsatisfiedLinkError e) {
        return null;
      }
    }
    return library;
  }

  /** Reads port 1 of every ibverbs device; {@code notes} says what happened. */
  Map<String, Port> ports(List<String> notes) {
    IbverbsLibrary lib = library();
    if (lib == null) {
      notes.add(
          "ibverbs: libibverbs is not installed (Debian package libibverbs1); port states from sysfs/hwloc only");
      return Map.of();
    }
    IntByReference count = new IntByReference();
    Pointer list = lib.ibv_get_device_list(count);
    if (list == null) {
      int errno = Native.getLastError();
      notes.add(
          "ibverbs: no RDMA devices"
              + (errno == ENOSYS ? " (ENOSYS: no RDMA subsystem)" : " (errno " + errno + ")"));
      return Map.of();
    }
    Map<String, Port> out = new LinkedHashMap<>();
    try {
      for (int i = 0; i < count.getValue(); i++) {
        Pointer dev = list.getPointer((long) i * Native.POINTER_SIZE);
        String name = lib.ibv_get_device_name(dev);
        Port p = query(lib, dev);
        if (name != null && p != null) {
          out.put(name, p);
        }
      }
    } finally {
      lib.ibv_free_device_list(list);
    }
    notes.add("ibverbs: " + out.size() + " RDMA devices " + out.keySet());
    return out;
  }

  /**
   * The Data Direct function of every mlx5 device that has one, from libmlx5 ({@link
   * DataDirectPath}); why it could not be asked when libmlx5 or its symbol is missing.
   */
  public DataDirectTies dataDirect(List<String> notes) {
    List<String> why = new ArrayList<>();
    DataDirectPath path = DataDirectPath.bind(mlx5Name, why);
    IbverbsLibrary lib = library();
    if (lib == null) {
      why.add("libibverbs is not installed (Debian package libibverbs1)");
    }
    if (!why.isEmpty()) {
      String reason = String.join("; ", why);
      notes.add("ibverbs: Data Direct functions not asked: " + reason);
      return DataDirectTies.unavailable(reason);
    }
    IntByReference count = new IntByReference();
    Pointer list = lib.ibv_get_device_list(count);
    if (list == null) {
      return DataDirectTies.of(Map.of());
    }
    Map<String, PciAddress> out = new TreeMap<>();
    try {
      for (int i = 0; i < count.getValue(); i++) {
        Pointer dev = list.getPointer((long) i * Native.POINTER_SIZE);
        String name = lib.ibv_get_device_name(dev);
        Pointer ctx = name == null ? null : lib.ibv_open_device(dev);
        if (ctx != null) {
          try {
            PciAddress at = DataDirectPath.of(path, name, ctx, notes);
            if (at != null) {
              out.put(name, at);
            }
          } finally {
            lib.ibv_close_device(ctx);
          }
        }
      }
    } finally {
      lib.ibv_free_device_list(list);
    }
    notes.add("ibverbs: Data Direct functions " + out);
    return DataDirectTies.of(out);
  }

  private static Port query(IbverbsLibrary lib, Pointer dev) {
    Pointer ctx = lib.ibv_open_device(dev);
    if (ctx == null) {
      return null;
    }
    try {
      Memory attr = new Memory(256);
      attr.clear();
      if (lib.ibv_query_port(ctx, (byte) 1, attr) != 0) {
        return null;
      }
      String state = DeviceRules.portState(Integer.toString(attr.getInt(0)));
      int ll = attr.getByte(LINK_LAYER_OFFSET) & 0xff;
      return new Port(state, ll == 1 ? "InfiniBand" : ll == 2 ? "Ethernet" : null);
    } finally {
      lib.ibv_close_device(ctx);
    }
  }

  /** Overlays libibverbs port states onto the HCAs of a discovery. */
  public Discovery enrich(Discovery d) {
    List<String> notes = new ArrayList<>(d.notes());
    Map<String, Port> ports = ports(notes);
    if (ports.isEmpty() || d.machine().hcas().isEmpty()) {
      return new Discovery(d.machine(), d.source(), notes, d.warnings());
    }
    List<Device> devices =
        d.machine().devices().stream()
            .map(
                dev -> {
                  Port p = dev.kind() == DeviceKind.HCA ? ports.get(dev.hca().ibDevice()) : null;
                  if (p == null) {
                    return dev;
                  }
                  HcaInfo h = dev.hca();
                  HcaInfo updated =
                      h.toBuilder()
                          .linkLayer(p.linkLayer() != null ? p.linkLayer() : h.linkLayer())
                          .portState(p.state())
                          .build();
                  return dev.toBuilder().hca(updated).build();
                })
            .toList();
    Machine m = d.machine();
    return new Discovery(
        new Machine(m.nodeName(), m.source(), m.pcie(), devices), d.source(), notes, d.warnings());
  }
}
