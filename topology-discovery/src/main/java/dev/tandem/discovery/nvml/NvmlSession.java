package dev.tandem.discovery.nvml;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import dev.tandem.topology.model.PciAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One successful {@code nvmlInit_v2}, undone by {@link #close} (one {@code nvmlShutdown}, however
 * often it is called). Opened by {@link Nvml#open}; thread-safe. Blocking (JNA): call it on a
 * worker thread.
 */
public final class NvmlSession implements AutoCloseable {

  private final NvmlLibrary lib;
  private final String libraryName;
  private boolean closed;

  NvmlSession(NvmlLibrary lib, String libraryName) {
    this.lib = lib;
    this.libraryName = libraryName;
  }

  /**
   * Whether NVML finds the GPU of this UUID now ({@code nvmlDeviceGetHandleByUUID} succeeds); a GPU
   * that fell off the bus or that the driver lost is not found.
   *
   * @throws NvmlException when the session is closed
   */
  public synchronized boolean finds(String uuid) {
    requireOpen();
    return lib.nvmlDeviceGetHandleByUUID(uuid, new PointerByReference()) == NvmlLibrary.SUCCESS;
  }

  /**
   * The GPUs with MIG enabled and their MIG devices; GPUs without MIG (or that do not support it)
   * are left out.
   *
   * @throws NvmlException when an NVML call fails or the session is closed
   */
  public synchronized List<MigGpu> migGpus() {
    requireOpen();
    IntByReference count = new IntByReference();
    check("nvmlDeviceGetCount_v2", lib.nvmlDeviceGetCount_v2(count));
    List<MigGpu> out = new ArrayList<>();
    for (int i = 0; i < count.getValue(); i++) {
      PointerByReference gpu = new PointerByReference();
      check("nvmlDeviceGetHandleByIndex_v2", lib.nvmlDeviceGetHandleByIndex_v2(i, gpu));
      if (migEnabled(gpu.getValue())) {
        out.add(migGpu(gpu.getValue()));
      }
    }
    return out;
  }

  /** Shuts this session's initialisation down; later calls do nothing. */
  @Override
  public synchronized void close() {
    if (!closed) {
      closed = true;
      lib.nvmlShutdown();
    }
  }

  private void requireOpen() {
    if (closed) {
      throw NvmlException.closed(libraryName);
    }
  }

  private boolean migEnabled(Pointer gpu) {
    IntByReference current = new IntByReference();
    IntByReference pending = new IntByReference();
    int rc = lib.nvmlDeviceGetMigMode(gpu, current, pending);
    if (rc == NvmlLibrary.ERROR_NOT_SUPPORTED) {
      return false;
    }
    check("nvmlDeviceGetMigMode", rc);
    return current.getValue() == NvmlLibrary.MIG_ENABLE;
  }

  private MigGpu migGpu(Pointer gpu) {
    String uuid = uuid(gpu);
    IntByReference max = new IntByReference();
    check("nvmlDeviceGetMaxMigDeviceCount", lib.nvmlDeviceGetMaxMigDeviceCount(gpu, max));
    List<String> migs = new ArrayList<>();
    for (int j = 0; j < max.getValue(); j++) {
      PointerByReference mig = new PointerByReference();
      int rc = lib.nvmlDeviceGetMigDeviceHandleByIndex(gpu, j, mig);
      if (rc == NvmlLibrary.ERROR_NOT_FOUND) {
        continue; // no MIG device at this index
      }
      check("nvmlDeviceGetMigDeviceHandleByIndex of GPU " + uuid, rc);
      migs.add(uuid(mig.getValue()));
    }
    return new MigGpu(uuid, address(gpu), migs);
  }

  private String uuid(Pointer device) {
    byte[] buffer = new byte[NvmlLibrary.UUID_BUFFER_SIZE];
    check("nvmlDeviceGetUUID", lib.nvmlDeviceGetUUID(device, buffer, buffer.length));
    return cString(buffer, 0);
  }

  /** The GPU's PCI address from NVML's bus id ({@code 00000000:3B:00.0}); null when unreadable. */
  private PciAddress address(Pointer gpu) {
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

  private void check(String call, int rc) {
    if (rc != NvmlLibrary.SUCCESS) {
      throw NvmlException.failed(lib, call, rc);
    }
  }
}
