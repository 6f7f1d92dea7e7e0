package dev.tandem.kit.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.Stream;

/**
 * A host directory through which a daemon hands whole files to another reader: CDI specs to the
 * container runtime, Device Information files to CNI plugins. Files are written whole or not at all
 * ({@link WholeFile}), readable by all, so a reader never sees half a file. Every failure is a
 * {@link HostFileException} naming the directory or file, the cause and what to do. Blocking file
 * I/O: call it on a worker thread, or at start before the daemon serves.
 */
public final class HostDirectory {

  private final Path dir;
  private final String kind;
  private final String fix;

  /**
   * @param kind what the files are, for messages ({@code "device-info"}, {@code "CDI spec"})
   * @param fix what an operator does when the directory cannot be written, as a sentence
   */
  public HostDirectory(Path dir, String kind, String fix) {
    this.dir = dir;
    this.kind = kind;
    this.fix = fix;
  }

  public Path path() {
    return dir;
  }

  /** Creates the directory when it is missing, then proves that a file can be created in it. */
  public void prepare() {
    try {
      WholeFile.proveWritable(dir);
    } catch (IOException | UnsupportedOperationException e) {
      throw new HostFileException(
          "the "
              + kind
              + " directory "
              + dir
              + " cannot be written: "
              + WholeFile.why(e)
              + ". "
              + fix,
          e);
    }
  }

  /**
   * Writes {@code fileName} whole, creating the directory when it is missing; the target is as it
   * was before when this fails.
   */
  public void write(String fileName, byte[] bytes) {
    write(fileName, bytes, null);
  }

  /**
   * {@link #write(String, byte[])}, naming in the error what the file is for.
   *
   * @param owner what the file is for (a device); null when the caller names it itself
   */
  public void write(String fileName, byte[] bytes, String owner) {
    Path file = dir.resolve(fileName);
    try {
      Files.createDirectories(dir);
      WholeFile.write(file, bytes);
    } catch (IOException | UnsupportedOperationException e) {
      throw new HostFileException(
          "the "
              + kind
              + " file "
              + file
              + (owner == null ? "" : " of " + owner)
              + " cannot be written: "
              + WholeFile.why(e)
              + ". "
              + fix,
          e);
    }
  }

  /** Removes a file; false when it was not there. */
  public boolean remove(String fileName) {
    Path file = dir.resolve(fileName);
    try {
      return Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new HostFileException(
          "the "
              + kind
              + " file "
              + file
              + " cannot be removed: "
              + WholeFile.why(e)
              + ". Only this daemon writes that name: remove what is there by hand",
          e);
    }
  }

  /**
   * Whether a file of that name is in the directory: a regular file, not a directory or a link put
   * in its place (which is not what this daemon wrote).
   */
  public boolean exists(String fileName) {
    return Files.isRegularFile(dir.resolve(fileName), LinkOption.NOFOLLOW_LINKS);
  }

  /** The names among {@code candidates} that are files in the directory now. */
  public Set<String> present(Set<String> candidates) {
    Set<String> out = new HashSet<>();
    try (Stream<Path> files = Files.list(dir)) {
      files.map(p -> p.getFileName().toString()).filter(candidates::contains).forEach(out::add);
    } catch (IOException e) {
      throw new HostFileException(
          "the " + kind + " directory " + dir + " cannot be listed: " + WholeFile.why(e), e);
    }
    return out;
  }
}
