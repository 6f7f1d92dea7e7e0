package dev.tandem.discovery.ibverbs;

import com.sun.jna.Function;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import dev.tandem.topology.model.PciAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * libmlx5's {@code int mlx5dv_get_data_direct_sysfs_path(struct ibv_context *, char *buf, size_t
 * len)} (rdma-core 54 and later; {@code
 * providers/mlx5/man/mlx5dv_get_data_direct_sysfs_path.3.md}): 0 and the Data Direct function's
 * sysfs path without its {@code /sys} prefix, or an errno value, {@code ENODEV} when the device has
 * no Data Direct function. Bound by name at run time, so an older libmlx5 (Debian 12 ships
 * rdma-core 44) is a reason, not a link error.
 */
@FunctionalInterface
interface DataDirectPath {

  String SYMBOL = "mlx5dv_get_data_direct_sysfs_path";
  int ENODEV = 19;
  int BUFFER = 4096;

  /** Calls the function for the device open at {@code context}; returns its result. */
  int call(Pointer context, byte[] buffer, long length);

  /** The function in libmlx5 ({@code library}); null with {@code why} filled when absent. */
  static DataDirectPath bind(String library, List<String> why) {
    NativeLibrary mlx5;
    try {
      mlx5 = NativeLibrary.getInstance(library);
    } catch (UnsatisfiedLinkError e) {
      why.add("libmlx5 is not installed (Debian package ibverbs-providers)");
      return null;
    }
    try {
      Function f = mlx5.getFunction(SYMBOL);
      return (context, buffer, length) ->
          f.invokeInt(new Object[] {context, buffer, new NativeLong(length)});
    } catch (UnsatisfiedLinkError e) {
      why.add(
          "libmlx5 lacks "
              + SYMBOL
              + " (rdma-core 54 and later have it; Debian 12 ships rdma-core 44)");
      return null;
    }
  }

  /**
   * The Data Direct function of the device {@code ibDevice} open at {@code context}; null when it
   * has none or the answer cannot be read ({@code notes} says which).
   */
  static PciAddress of(DataDirectPath path, String ibDevice, Pointer context, List<String> notes) {
    byte[] buffer = new byte[BUFFER];
    int rc = path.call(context, buffer, buffer.length);
    if (rc == ENODEV) {
      return null;
    }
    if (rc != 0) {
      notes.add("ibverbs: " + SYMBOL + " for " + ibDevice + " failed with errno " + rc);
      return null;
    }
    String sysfs = Native.toString(buffer, StandardCharsets.US_ASCII.name());
    String last = sysfs.substring(sysfs.lastIndexOf('/') + 1);
    try {
      return PciAddress.parse(last);
    } catch (IllegalArgumentException e) {
      notes.add(
          "ibverbs: "
              + SYMBOL
              + " gives "
              + ibDevice
              + " the path /sys"
              + sysfs
              + ", which does not end in a PCI address: "
              + ibDevice
              + " stays at its own PCI address");
      return null;
    }
  }
}
