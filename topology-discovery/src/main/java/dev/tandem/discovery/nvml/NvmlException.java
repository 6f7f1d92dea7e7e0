package dev.tandem.discovery.nvml;

import static java.util.stream.Collectors.joining;

import dev.tandem.discovery.DiscoveryException;

/**
 * NVML could not be used: its library does not load, or a call returned an error. The one place
 * NVML's failures are worded: the message names the library or the call, NVML's own text for the
 * code ({@code nvmlErrorString}) and the code, and what to check on the node.
 */
public final class NvmlException extends DiscoveryException {

  private static final long serialVersionUID = 1L;

  private final int code;

  private NvmlException(String message, int code, Throwable cause) {
    super(message, cause);
    this.code = code;
  }

  /** NVML's return code ({@code nvmlReturn_t}); -1 when the library itself did not load. */
  public int code() {
    return code;
  }

  /** The library {@code name} cannot be loaded (absent, or not a loadable NVML). */
  static NvmlException missingLibrary(String name, UnsatisfiedLinkError e) {
    return new NvmlException(
        "NVML library "
            + name
            + " cannot be loaded ("
            + firstLines(e.getMessage())
            + "); make the NVIDIA driver's libnvidia-ml.so.1 visible to this process (NVIDIA"
            + " container toolkit, or a hostPath mount of the driver's library directory and"
            + " --nvml-library naming the file)",
        -1,
        e);
  }

  /** {@code call} returned {@code rc}, worded by NVML's {@code nvmlErrorString}. */
  static NvmlException failed(NvmlLibrary lib, String call, int rc) {
    return new NvmlException(
        "NVML " + call + " failed: " + errorString(lib, rc) + " (" + rc + "); " + hint(rc),
        rc,
        null);
  }

  /** A session used after {@link NvmlSession#close}. */
  static NvmlException closed(String library) {
    return new NvmlException(
        "NVML session of " + library + " is closed (nvmlShutdown was called)",
        NvmlLibrary.ERROR_UNINITIALIZED,
        null);
  }

  private static String hint(int rc) {
    return switch (rc) {
      case NvmlLibrary.ERROR_DRIVER_NOT_LOADED ->
          "the NVIDIA kernel driver is not loaded on this node (check nvidia-smi on the host)";
      case NvmlLibrary.ERROR_NO_PERMISSION ->
          "this process may not open the GPUs' device nodes (/dev/nvidia*): mount them into the"
              + " container";
      case NvmlLibrary.ERROR_LIB_RM_VERSION_MISMATCH ->
          "the library and the loaded kernel driver are of different versions (a driver upgrade"
              + " without a reboot?)";
      default -> "check nvidia-smi on the node";
    };
  }

  private static String errorString(NvmlLibrary lib, int rc) {
    try {
      String s = lib.nvmlErrorString(rc);
      return s == null || s.isBlank() ? "NVML error" : s;
    } catch (UnsatisfiedLinkError e) {
      return "NVML error";
    }
  }

  /** JNA's message without its repetitions: the header and the loader's first reason. */
  private static String firstLines(String text) {
    String s =
        text == null
            ? ""
            : text.lines()
                .map(String::strip)
                .filter(l -> !l.isEmpty())
                .limit(2)
                .collect(joining(" "));
    return s.isEmpty() ? "not found" : s;
  }
}
