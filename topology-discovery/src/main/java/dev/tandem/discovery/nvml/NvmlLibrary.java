package dev.tandem.discovery.nvml;

import com.sun.jna.Library;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;

/**
 * The JNA mapping of libnvidia-ml (NVML): the exported symbols Tandem calls, with the signatures of
 * NVIDIA's {@code nvml.h}. Every call returns an {@code nvmlReturn_t} (0 is success), {@code
 * nvmlDevice_t} is an opaque pointer, {@code unsigned int} is bound as {@code int}. The only struct
 * read is {@code nvmlPciInfo_t} (v3), and only its {@code busId} string. Package-private: it is
 * used only through {@link Nvml} and {@link NvmlSession}, which own loading, errors and the
 * init/shutdown pairing.
 */
interface NvmlLibrary extends Library {

  int SUCCESS = 0;
  int ERROR_UNINITIALIZED = 1;
  int ERROR_NOT_SUPPORTED = 3;
  int ERROR_NO_PERMISSION = 4;
  int ERROR_NOT_FOUND = 6;
  int ERROR_DRIVER_NOT_LOADED = 9;
  int ERROR_GPU_IS_LOST = 15;
  int ERROR_LIB_RM_VERSION_MISMATCH = 18;

  /** {@code NVML_DEVICE_MIG_ENABLE}. */
  int MIG_ENABLE = 1;

  /** {@code NVML_DEVICE_UUID_V2_BUFFER_SIZE}: large enough for any GPU or MIG UUID. */
  int UUID_BUFFER_SIZE = 96;

  /**
   * {@code sizeof(nvmlPciInfo_t)}: {@code char busIdLegacy[16]}, five {@code unsigned int}s, {@code
   * char busId[32]}.
   */
  int PCI_INFO_SIZE = 16 + 5 * 4 + 32;

  /** Offset of {@code busId} ({@code domain:bus:device.function}) in {@code nvmlPciInfo_t}. */
  int PCI_INFO_BUS_ID_OFFSET = 16 + 5 * 4;

  int nvmlInit_v2();

  int nvmlShutdown();

  String nvmlErrorString(int result);

  int nvmlDeviceGetCount_v2(IntByReference deviceCount);

  int nvmlDeviceGetHandleByIndex_v2(int index, PointerByReference device);

  int nvmlDeviceGetHandleByUUID(String uuid, PointerByReference device);

  int nvmlDeviceGetUUID(Pointer device, byte[] uuid, int length);

  int nvmlDeviceGetPciInfo_v3(Pointer device, Pointer pci);

  int nvmlDeviceGetMigMode(Pointer device, IntByReference currentMode, IntByReference pendingMode);

  int nvmlDeviceGetMaxMigDeviceCount(Pointer device, IntByReference count);

  int nvmlDeviceGetMigDeviceHandleByIndex(Pointer device, int index, PointerByReference migDevice);
}
