package dev.tandem.kit.files;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The one way a daemon writes a file another program reads (a CNI device-information file, a CDI
 * spec, a checkpoint): whole or not at all. The bytes go to a temporary file beside the target
 * (named with a leading dot and ending in {@code .tmp}, which none of those readers take), forced
 * to disk, then renamed over the target atomically. Blocking file I/O.
 */
public final class WholeFile {

  private WholeFile() {}

  /**
   * Writes {@code bytes} to {@code target}, readable by all; on failure the target is as it was and
   * the temporary file is removed.
   */
  public static void write(Path target, byte[] bytes) throws IOException {
    Path tmp =
        Files.createTempFile(
            target.toAbsolutePath().getParent(),
            "." + target.getFileName(),
            ".tmp",
            PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
    try {
      try (FileChannel out = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ByteBuffer buffer = ByteBuffer.wrap(bytes);
        while (buffer.hasRemaining()) {
          out.write(buffer);
        }
        out.force(true);
      }
      Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  /**
   * Creates a directory when it is missing, then proves that a file can be created in it (a
   * read-only mount fails here, at start, rather than at the first write).
   */
  public static void proveWritable(Path dir) throws IOException {
    Files.createDirectories(dir);
    Files.delete(Files.createTempFile(dir, ".tandem-probe-", ".tmp"));
  }

  /** Why a file operation failed, in words for an error message. */
  public static String why(Exception e) {
    if (e instanceof FileAlreadyExistsException) {
      return "it or a directory above it is a file";
    }
    if (e instanceof NoSuchFileException) {
      return "a directory above it does not exist and cannot be created";
    }
    if (e instanceof AccessDeniedException) {
      return "permission denied";
    }
    if (e instanceof DirectoryNotEmptyException) {
      return "a directory that is not empty is in its place";
    }
    if (e instanceof NotDirectoryException) {
      return "a directory above it is a file";
    }
    if (e instanceof FileSystemException f && f.getReason() != null) {
      return f.getReason();
    }
    // the words of the failure, not the class of an exception (the message may reach a pod event)
    return "I/O error" + (e.getMessage() == null ? "" : ": " + e.getMessage());
  }
}
