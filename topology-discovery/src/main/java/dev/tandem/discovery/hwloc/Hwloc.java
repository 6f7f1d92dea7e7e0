package dev.tandem.discovery.hwloc;

import com.sun.jna.Native;
import com.sun.jna.NativeLong;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import dev.tandem.discovery.DiscoveryException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * libhwloc 2.x through JNA, the layout-free way: load a topology (this machine or an XML file) with
 * every I/O object kept, export it as XML, and let {@link HwlocXmlReader} parse it. The library is
 * loaded on first use and held by this instance.
 */
public final class Hwloc {

  /** Major API version this binding supports ({@code HWLOC_API_VERSION} 0x0002xxxx). */
  static final int SUPPORTED_MAJOR = 2;

  static final String PACKAGE = "libhwloc15";

  private final List<String> names;
  private HwlocLibrary library;

  /** The system's libhwloc 2.x. */
  public Hwloc() {
    this("hwloc", "libhwloc.so.15");
  }

  /** The first of these library names that loads. */
  Hwloc(String... names) {
    this.names = List.of(names);
  }

  /**
   * Loads libhwloc on first use and checks its API version; throws a {@link DiscoveryException}
   * that says what to install.
   */
  synchronized HwlocLibrary library() {
    if (library == null) {
      HwlocLibrary loaded = load(names);
      checkVersion(loaded.hwloc_get_api_version());
      library = loaded;
    }
    return library;
  }

  static void checkVersion(int apiVersion) {
    int major = apiVersion >>> 16;
    if (major != SUPPORTED_MAJOR) {
      throw new DiscoveryException(
          String.format(
              "libhwloc API version %d.%d (0x%08x) was found, but the agent needs API 2.x (hwloc 2.0 to 2.x, "
                  + "Debian package %s); install it or point LD_LIBRARY_PATH at an hwloc 2 library",
              major, (apiVersion >>> 8) & 0xff, apiVersion, PACKAGE));
    }
  }

  private static HwlocLibrary load(List<String> names) {
    UnsatisfiedLinkError first = null;
    for (String name : names) {
      try {
        return Native.load(name, HwlocLibrary.class);
      } catch (UnsatisfiedLinkError e) {
        first = first == null ? e : first;
      }
    }
    throw new DiscoveryException(
        "libhwloc is not installed (install the Debian package "
            + PACKAGE
            + "): "
            + first.getMessage(),
        first);
  }

  /** Loads this machine and returns hwloc's XML export of it. */
  public String exportThisMachine() {
    return export(null, "this machine");
  }

  /**
   * Loads an hwloc XML document (v1 or v2 format) from these very bytes, never from a path, and
   * returns libhwloc's v2 export of it: what libhwloc parses is what the caller checked ({@link
   * HwlocXmlVersion}), not a file that may have changed since, nor a second read of it.
   *
   * @param what names the document in errors (its file)
   */
  String exportDocument(byte[] document, String what) {
    return export(Arrays.copyOf(document, document.length + 1), what);
  }

  /**
   * @param document the XML document with its ending NUL; null for this machine
   */
  private String export(byte[] document, String what) {
    HwlocLibrary lib = library();
    PointerByReference ref = new PointerByReference();
    if (lib.hwloc_topology_init(ref) != 0) {
      throw new DiscoveryException("hwloc_topology_init failed for " + what);
    }
    Pointer topology = ref.getValue();
    try {
      lib.hwloc_topology_set_io_types_filter(topology, HwlocLibrary.TYPE_FILTER_KEEP_ALL);
      int rc = 0;
      if (document != null) {
        rc = lib.hwloc_topology_set_xmlbuffer(topology, document, document.length);
      }
      if (rc == 0) {
        rc = lib.hwloc_topology_load(topology);
      }
      if (rc != 0) {
        throw new DiscoveryException(
            "libhwloc cannot load "
                + what
                + " (errno "
                + Native.getLastError()
                + "): not a topology libhwloc 2.x can import (it reads hwloc XML versions 1.x and 2.x)");
      }
      return exportXml(lib, topology, what);
    } finally {
      lib.hwloc_topology_destroy(topology);
    }
  }

  private static String exportXml(HwlocLibrary lib, Pointer topology, String what) {
    PointerByReference xml = new PointerByReference();
    IntByReference len = new IntByReference();
    if (lib.hwloc_topology_export_xmlbuffer(topology, xml, len, new NativeLong(0)) != 0) {
      throw new DiscoveryException(
          "libhwloc cannot export " + what + " as XML (errno " + Native.getLastError() + ")");
    }
    try {
      byte[] bytes = xml.getValue().getByteArray(0, Math.max(0, len.getValue() - 1));
      return new String(bytes, StandardCharsets.UTF_8);
    } finally {
      lib.hwloc_free_xmlbuffer(topology, xml.getValue());
    }
  }
}
