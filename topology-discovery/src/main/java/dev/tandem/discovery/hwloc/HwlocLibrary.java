package dev.tandem.discovery.hwloc;

import com.sun.jna.Library;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The exported libhwloc 2.x symbols the agent binds: only the layout-free ones (no struct is read);
 * the inline header helpers are not library symbols and are not bound.
 */
interface HwlocLibrary extends Library {

  /** {@code HWLOC_TYPE_FILTER_KEEP_ALL} in hwloc 2.x {@code enum hwloc_type_filter_e}. */
  int TYPE_FILTER_KEEP_ALL = 0;

  int hwloc_get_api_version();

  int hwloc_topology_init(PointerByReference topology);

  int hwloc_topology_set_io_types_filter(Pointer topology, int filter);

  /**
   * {@code int hwloc_topology_set_xmlbuffer(hwloc_topology_t, const char *buffer, int size)}: the
   * XML document in memory; {@code size} counts the ending NUL, as hwloc's own export does.
   */
  int hwloc_topology_set_xmlbuffer(Pointer topology, byte[] buffer, int size);

  int hwloc_topology_load(Pointer topology);

  int hwloc_topology_export_xmlbuffer(
      Pointer topology, PointerByReference xmlbuffer, IntByReference buflen, NativeLong flags);

  void hwloc_free_xmlbuffer(Pointer topology, Pointer xmlbuffer);

  void hwloc_topology_destroy(Pointer topology);
}
