package dev.tandem.discovery;

import com.sun.jna.Memory;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import dev.tandem.topology.model.PciAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The MIG devices of this machine's GPUs through NVML ({@code libnvidia-ml.so.1}, which the NVIDIA
 * driver installs and the NVIDIA container toolkit mounts into containers). Each {@link #migGpus}
 * call initializes NVML, walks the GPUs and shuts NVML down again. Blocking (JNA): call it on a
 * worker thread. The library is loaded on first use and held by this instance; a library that
 * cannot be loaded is tried again on the next call.
 */
public final class Nvml {

  /** The library the NVIDIA driver installs. */
  public static final String LIBRARY = "libnvidia-ml.so.1";

  private final String libraryName;
  private NvmlLibrary library;

  /**
   * @param libraryName a library name or an absolute path to load, e.g. {@link #LIBRARY}
   */
  public Nvml(String libraryName) {
    this.libraryName = libraryName;
  }

  /** The library this instance loads. */
  public String libraryName() {
    return libraryName;
  }

  /**
   * The GPUs with MIG enabled and their MIG devices; GPUs without MIG (or that do not support it)
   * are left out.
   *
   * @throws DiscoveryException when the library cannot be loaded or an NVML call fails; the message
   *     names the library, the call, NVML's error and what to do
   */
  public List<MigGpu> migGpus() {
    NvmlLibrary lib = library();
    check(lib, "nvmlInit_v2", lib.nvmlInit_v2());
    try {
      IntByReference count = new IntByReference();
      check(lib, "nvmlDeviceGetCount_v2", lib.nvmlDeviceGetCount_v2(count));
      List<MigGpu> out = new ArrayList<>();
      for (int i = 0; i < count.getValue(); i++) {
        PointerByReference gpu = new PointerByReference();
        check(lib, "nvmlDeviceGetHandleByIndex_v2", lib.nvmlDeviceGetHandleByIndex_v2(i, gpu));
        if (migEnabled(lib, gpu.getValue())) {
          out.add(migGpu(lib, gpu.getValue()));
        }
      }
      return out;
    } finally {
      lib.nvmlShutdown();
    }
  }

  private synchronized NvmlLibrary library() {
    if (library == null) {
      try {
        library = Native.load(libraryName, NvmlLibrary.class);
      } catch (UnsatisfiedLinkError e) {
        throw new DiscoveryException(
            "NVML library "
                + libraryName
                + " cannot be loaded ("
                + e.getMessage()
                + "); make the NVIDIA driver's libnvidia-ml.so.1 visible to this process (NVIDIA"
                + " container toolkit, or a hostPath mount of the driver's library directory)",
            e);
      }
    }
    return library;
  }

  private static boolean migEnabled(NvmlLibrary lib, Pointer gpu) {
    IntByReference current = new IntByReference();
    IntByReference pending = new IntByReference();
    int rc = lib.nvmlDeviceGetMigMode(gpu, current, pending);
    if (rc == NvmlLibrary.ERROR_NOT_SUPPORTED) {
      return false;
    }
    check(lib, "nvmlDeviceGetMigMode", rc);
    return current.getValue() == NvmlLibrary.MIG_ENABLE;
  }

  private static MigGpu migGpu(NvmlLibrary lib, Pointer gpu) {
    String uuid = uuid(lib, gpu);
    IntByReference max = new IntByReference();
    check(lib, "nvmlDeviceGetMaxMigDeviceCount", lib.nvmlDeviceGetMaxMigDeviceCount(gpu, max));
    List<String> migs = new ArrayList<>();
    for (int j = 0; j < max.getValue(); j++) {
      PointerByReference mig = new PointerByReference();
      int rc = lib.nvmlDeviceGetMigDeviceHandleByIndex(gpu, j, mig);
      if (rc == NvmlLibrary.ERROR_NOT_FOUND) {
        continue; // no MIG device at this index
      }
      check(lib, "nvmlDeviceGetMigDeviceHandleByIndex of GPU " + uuid, rc);
      migs.add(uuid(lib, mig.getValue()));
    }
    return new MigGpu(uuid, address(lib, gpu), migs);
  }

  private static String uuid(NvmlLibrary lib, Pointer device) {
    byte[] buffer = new byte[NvmlLibrary.UUID_BUFFER_SIZE];
    check(lib, "nvmlDeviceGetUUID", lib.nvmlDeviceGetUUID(device, buffer, buffer.length));
    return cString(buffer, 0);
  }

  /** The GPU's PCI address from NVML's bus id ({@code 00000000:3B:00.0}); null when unreadable. */
  private static PciAddress address(NvmlLibrary lib, Pointer gpu) {
    Memory pci = new Memory(NvmlLibrary.PCI_INFO_SIZE);
    pci.clear();
    if (lib.nvmlDeviceGetPciInfo_v3(gpu, pci) != NvmlLibrary.SUCCESS) {
      return null;
    }
    byte[] bytes = pci.getByteArray(0, NvmlLibrary.PCI_INFO_SIZE);
    try {
      return PciAddress.parse(cString(bytes, NvmlLibrary.PCI_INFO_BUS_ID_OFFSET));
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  private static String cString(byte[] bytes, int from) {
    int end = from;
    while (end < bytes.length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, from, end - from, StandardCharsets.US_ASCII);
  }

  private static void check(NvmlLibrary lib, String call, int rc) {
    if (rc == NvmlLibrary.SUCCESS) {
      return;
    }
    String hint =
        rc == NvmlLibrary.ERROR_DRIVER_NOT_LOADED
            ? "the NVIDIA kernel driver is not loaded on this node (check nvidia-smi on the host)"
            : "check nvidia-smi on the node";
    throw new DiscoveryException(
        "NVML " + call + " failed: " + lib.nvmlErrorString(rc) + " (" + rc + "); " + hint);
  }
}
