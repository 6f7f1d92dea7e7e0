package dev.tandem.discovery;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One small file of the host's sysfs or procfs, read whole but bounded: a sysfs attribute is at
 * most one page (4 KiB) and the NVIDIA driver's procfs files are smaller, so a file longer than
 * {@link #MAX_BYTES} is no such file (a damaged {@code --sysfs-root}, or a link to a device such as
 * {@code /dev/zero} that never ends) and is refused before it is read further. The text must be
 * UTF-8. Blocking I/O.
 */
public final class HostFile {

  /** The most a host file may hold: 16 pages. */
  public static final int MAX_BYTES = 64 * 1024;

  private HostFile() {}

  /**
   * The file's text.
   *
   * @throws IOException when it cannot be read, is longer than {@link #MAX_BYTES} or is not UTF-8;
   *     the message names the file
   */
  public static String read(Path file) throws IOException {
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes(MAX_BYTES + 1);
    }
    if (bytes.length > MAX_BYTES) {
      throw new IOException(
          file + " holds more than " + MAX_BYTES + " bytes, which no sysfs or procfs file does");
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      throw new IOException(file + " is not UTF-8 text", e);
    }
  }
}
