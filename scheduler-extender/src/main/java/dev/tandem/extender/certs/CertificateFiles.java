package dev.tandem.extender.certs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.function.Supplier;

/**
 * A {@link CertificateSet} as files laid out like the two Secrets: {@code DIR/extender/} and {@code
 * DIR/kube-scheduler/}, each with {@code tls.crt}, {@code tls.key} and {@code ca.crt}. For hosts
 * that run kube-scheduler as a static pod, and for the end-to-end harness.
 */
public final class CertificateFiles {

  public static final String EXTENDER = "extender";
  public static final String SCHEDULER = "kube-scheduler";

  private CertificateFiles() {}

  /**
   * Writes a new set unless {@code dir} already holds one.
   *
   * @return true when written, false when both directories were already complete
   */
  public static boolean ensure(Path dir, Supplier<CertificateSet> issue) {
    boolean extender = complete(dir.resolve(EXTENDER));
    boolean scheduler = complete(dir.resolve(SCHEDULER));
    if (extender && scheduler) {
      return false;
    }
    if (extender || scheduler) {
      throw new CertificateIssueException(
          dir.resolve(extender ? EXTENDER : SCHEDULER)
              + " holds certificates but "
              + dir.resolve(extender ? SCHEDULER : EXTENDER)
              + " does not: both must come from one CA; remove both to issue a new set");
    }
    CertificateSet set = issue.get();
    write(dir.resolve(EXTENDER), set.extender(), set.ca());
    write(dir.resolve(SCHEDULER), set.scheduler(), set.ca());
    return true;
  }

  private static boolean complete(Path dir) {
    return Files.isRegularFile(dir.resolve("tls.crt"))
        && Files.isRegularFile(dir.resolve("tls.key"))
        && Files.isRegularFile(dir.resolve("ca.crt"));
  }

  private static void write(Path dir, PemPair pair, String ca) {
    try {
      Files.createDirectories(dir);
      Path key = dir.resolve("tls.key");
      Files.deleteIfExists(key);
      Files.createFile(
          key, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      Files.writeString(key, pair.key(), StandardCharsets.US_ASCII);
      Files.writeString(dir.resolve("tls.crt"), pair.certificate(), StandardCharsets.US_ASCII);
      Files.writeString(dir.resolve("ca.crt"), ca, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw new CertificateIssueException("cannot write " + dir + ": " + e.getMessage());
    }
  }
}
