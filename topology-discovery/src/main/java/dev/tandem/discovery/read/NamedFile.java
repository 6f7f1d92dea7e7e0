package dev.tandem.discovery.read;

import dev.tandem.discovery.DiscoveryException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Reads a file the operator named, with errors that name it, what it was for and the reason. A file
 * is read only up to {@link XmlLimits#MAX_FILE_BYTES}, and its text must be valid UTF-8 (the
 * encoding hwloc writes and NCCL topology files use): a malformed byte is an error naming its
 * offset and line, never a replacement character that reads as if the file were well-formed.
 */
public final class NamedFile {

  private static final byte[] BOM = {(byte) 0xef, (byte) 0xbb, (byte) 0xbf};

  private NamedFile() {}

  /**
   * @param what what the file is, e.g. "hwloc XML file"
   */
  public static byte[] bytes(Path file, String what) {
    if (!Files.exists(file)) {
      throw new DiscoveryException(what + " " + file + " does not exist");
    }
    if (Files.isDirectory(file)) {
      throw new DiscoveryException(what + " " + file + " is a directory, not a file");
    }
    byte[] bytes;
    try (InputStream in = Files.newInputStream(file)) {
      bytes = in.readNBytes((int) XmlLimits.MAX_FILE_BYTES + 1);
    } catch (IOException e) {
      throw new DiscoveryException(what + " " + file + " cannot be read: " + e.getMessage(), e);
    }
    if (bytes.length > XmlLimits.MAX_FILE_BYTES) {
      throw new DiscoveryException(
          what
              + " "
              + file
              + " is larger than "
              + XmlLimits.MAX_FILE_BYTES
              + " bytes: over the limit for topology files, see "
              + XmlLimits.DOCS);
    }
    return bytes;
  }

  /** The file's text, decoded strictly as UTF-8 (a leading byte order mark is dropped). */
  public static String text(Path file, String what) {
    return utf8(bytes(file, what), what + " " + file);
  }

  /** Decodes UTF-8 strictly; {@code what} names the input in the error. */
  public static String utf8(byte[] bytes, String what) {
    int start = startsWithBom(bytes) ? BOM.length : 0;
    ByteBuffer in = ByteBuffer.wrap(bytes, start, bytes.length - start);
    CharBuffer out = CharBuffer.allocate(bytes.length);
    CharsetDecoder decoder =
        StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    CoderResult result = decoder.decode(in, out, true);
    if (!result.isError()) {
      result = decoder.flush(out);
    }
    if (result.isError()) {
      int offset = in.position();
      throw new DiscoveryException(
          what
              + " is not valid UTF-8: byte "
              + offset
              + " (line "
              + line(bytes, offset)
              + ") starts a malformed sequence of "
              + result.length()
              + " byte(s); topology files are UTF-8 (export the file again or fix its encoding)");
    }
    return out.flip().toString();
  }

  private static boolean startsWithBom(byte[] bytes) {
    return bytes.length >= BOM.length
        && bytes[0] == BOM[0]
        && bytes[1] == BOM[1]
        && bytes[2] == BOM[2];
  }

  private static int line(byte[] bytes, int offset) {
    int line = 1;
    for (int i = 0; i < offset; i++) {
      line += bytes[i] == '\n' ? 1 : 0;
    }
    return line;
  }
}
