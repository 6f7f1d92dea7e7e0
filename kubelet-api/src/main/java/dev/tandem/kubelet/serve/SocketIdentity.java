package dev.tandem.kubelet.serve;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;

/**
 * Which incarnation of a socket file is there now: inode and modification time, so a socket that
 * was removed and created again (a restarted kubelet) reads differently. Blocking file I/O.
 */
public final class SocketIdentity {

  private SocketIdentity() {}

  public static Optional<String> of(Path socket) {
    try {
      BasicFileAttributes a = Files.readAttributes(socket, BasicFileAttributes.class);
      return Optional.of(
          a.fileKey()
              + "@"
              + a.lastModifiedTime().toInstant()
              + "/"
              + a.creationTime().toInstant());
    } catch (IOException e) {
      return Optional.empty();
    }
  }
}
