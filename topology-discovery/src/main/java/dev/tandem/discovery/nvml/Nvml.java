package dev.tandem.discovery.nvml;

import com.sun.jna.Native;
import java.util.List;

/**
 * NVIDIA's NVML, the one binding every Tandem daemon uses: the agent reads MIG devices through it,
 * the device plugin's GPU health probe asks it for GPUs by UUID.
 *
 * <p><b>Which library.</b> {@link #LIBRARY}, {@code libnvidia-ml.so.1}, unless {@code
 * --nvml-library} names another (a name the dynamic loader finds, or a path). The NVIDIA driver
 * always installs the versioned {@code libnvidia-ml.so.1} (Debian's {@code libnvidia-ml1}, Ubuntu's
 * {@code libnvidia-compute-<version>}, NVIDIA's runfile), and the NVIDIA container toolkit mounts
 * exactly it into containers; the unversioned {@code libnvidia-ml.so} comes only with development
 * packages (Debian's {@code libnvidia-ml-dev}, the CUDA toolkit's stubs), so loading by the short
 * name {@code nvidia-ml} fails on a plain driver install. NVIDIA's own bindings (go-nvml,
 * cuda-python) load {@code libnvidia-ml.so.1} for the same reason.
 *
 * <p><b>Lifecycle.</b> {@link #open} calls {@code nvmlInit_v2} and returns a {@link NvmlSession};
 * closing it calls {@code nvmlShutdown} once. NVML counts initialisations and shuts down only when
 * every {@code nvmlInit_v2} has had its {@code nvmlShutdown}, so sessions may overlap in one
 * process: a long-lived one (the plugin's health probe, opened at start and closed at stop) and
 * short ones (each MIG reading of the agent) never undo each other. The library is loaded on the
 * first {@link #open} and held by this instance; one that cannot be loaded is tried again on the
 * next. Blocking (JNA): call it on a worker thread.
 *
 * <p><b>Errors.</b> Every failure is an {@link NvmlException}: a library that does not load, or a
 * call's NVML return code with NVML's own text for it and what to check.
 */
public final class Nvml {

  /** The library the NVIDIA driver installs; see the class comment. */
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
   * Initialises NVML; close the session to shut it down again.
   *
   * @throws NvmlException when the library cannot be loaded or {@code nvmlInit_v2} fails (then
   *     nothing is left to shut down)
   */
  public NvmlSession open() {
    NvmlLibrary lib = library();
    int rc;
    try {
      rc = lib.nvmlInit_v2();
    } catch (UnsatisfiedLinkError e) {
      throw NvmlException.missingLibrary(libraryName, e);
    }
    if (rc != NvmlLibrary.SUCCESS) {
      throw NvmlException.failed(lib, "nvmlInit_v2", rc);
    }
    return new NvmlSession(lib, libraryName);
  }

  /**
   * The GPUs with MIG enabled and their MIG devices, read in a session of its own; GPUs without MIG
   * (or that do not support it) are left out.
   *
   * @throws NvmlException when the library cannot be loaded or an NVML call fails
   */
  public List<MigGpu> migGpus() {
    try (NvmlSession session = open()) {
      return session.migGpus();
    }
  }

  private synchronized NvmlLibrary library() {
    if (library == null) {
      try {
        library = Native.load(libraryName, NvmlLibrary.class);
      } catch (UnsatisfiedLinkError e) {
        throw NvmlException.missingLibrary(libraryName, e);
      }
    }
    return library;
  }
}
