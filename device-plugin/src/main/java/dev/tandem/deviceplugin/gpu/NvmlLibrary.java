package dev.tandem.deviceplugin.gpu;

import com.sun.jna.Library;
import com.sun.jna.ptr.PointerByReference;

/** The few NVML symbols the plugin binds ({@code libnvidia-ml.so.1}); NVML_SUCCESS is 0. */
interface NvmlLibrary extends Library {

  int nvmlInit_v2();

  int nvmlDeviceGetHandleByUUID(String uuid, PointerByReference device);
}
