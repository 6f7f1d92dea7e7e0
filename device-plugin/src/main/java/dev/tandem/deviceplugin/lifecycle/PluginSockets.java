package dev.tandem.deviceplugin.lifecycle;

import dev.tandem.kubelet.serve.SocketIdentity;
import java.io.IOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The socket paths of one resource's plugin: every server gets a path of its own, {@code
 * <plugin-dir>/<stem>-<12 hex digits>.sock} for the configured endpoint {@code <stem>.sock}, and no
 * path is ever served twice. A 1.37 kubelet keys a resource's plugins by socket path and refuses a
 * second registration on a path it still knows; a 1.34 to 1.36 kubelet keeps one plugin per
 * resource whatever its path. Distinct paths let two plugin processes of a rolling update serve
 * side by side on both.
 *
 * <p>Sockets of this resource's plugins that nobody listens on any more (a process killed before it
 * removed its file) are stale: {@link #removeStale} deletes them, and only them. The configured
 * name itself counts as one of the resource's sockets (plugin versions that served on it).
 */
public final class PluginSockets {

  private static final SecureRandom RANDOM = new SecureRandom();

  private final Path dir;
  private final String endpoint;
  private final String stem;
  private final Pattern ours;

  /**
   * @param configured {@code <plugin-dir>/<endpoint>}, as {@code --endpoint} names it
   */
  public PluginSockets(Path configured) {
    this.dir = configured.toAbsolutePath().getParent();
    this.endpoint = configured.getFileName().toString();
    this.stem =
        endpoint.endsWith(".sock") ? endpoint.substring(0, endpoint.length() - 5) : endpoint;
    this.ours = Pattern.compile(Pattern.quote(stem) + "-[0-9a-f]{12}\\.sock");
  }

  /** A path no server has used yet. */
  public Path next() {
    byte[] token = new byte[6];
    RANDOM.nextBytes(token);
    return dir.resolve(stem + "-" + HexFormat.of().formatHex(token) + ".sock");
  }

  /** Whether {@code file} is one of this resource's sockets (by name). */
  public boolean isOurs(Path file) {
    String name = file.getFileName().toString();
    return name.equals(endpoint) || ours.matcher(name).matches();
  }

  /** This resource's socket files now in the plugin directory, sorted by name. */
  public List<Path> existing() throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(this::isOurs).sorted().toList();
    }
  }

  /**
   * Deletes this resource's socket files that refuse connections (their process is gone), except
   * {@code keep}; returns the ones deleted. A file whose probe fails otherwise (permissions), or
   * that was replaced while being probed, is left alone.
   */
  public List<Path> removeStale(Optional<Path> keep) throws IOException {
    List<Path> removed = new ArrayList<>();
    for (Path p : existing()) {
      if (keep.isPresent() && keep.get().equals(p)) {
        continue;
      }
      Optional<String> before = SocketIdentity.of(p);
      if (before.isPresent() && refusesConnections(p) && before.equals(SocketIdentity.of(p))) {
        if (Files.deleteIfExists(p)) {
          removed.add(p);
        }
      }
    }
    return removed;
  }

  private static boolean refusesConnections(Path socket) {
    try (SocketChannel c = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      c.connect(UnixDomainSocketAddress.of(socket));
      return false;
    } catch (ConnectException e) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
