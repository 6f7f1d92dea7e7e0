package dev.tandem.extender.certs;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The JDK's {@code keytool} (in every JDK and JRE, so in the extender's image) run on one PKCS#12
 * store in a working directory. The store's password goes through the environment, never the
 * command line.
 */
final class Keytool {

  private static final String PASSWORD_VARIABLE = "TANDEM_KEYSTORE_PASSWORD";

  private final Path store;
  private final String password;
  private final Path binary;

  Keytool(Path store, String password) {
    this.store = store;
    this.password = password;
    this.binary = Path.of(System.getProperty("java.home"), "bin", "keytool");
  }

  /** Runs {@code keytool <command> <args>} on the store; fails with keytool's own words. */
  void run(String command, String... args) {
    List<String> cmd = new ArrayList<>(List.of(binary.toString(), command));
    cmd.addAll(List.of(args));
    cmd.addAll(
        List.of(
            "-keystore",
            store.toString(),
            "-storetype",
            "PKCS12",
            "-storepass:env",
            PASSWORD_VARIABLE,
            "-noprompt"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
    pb.environment().put(PASSWORD_VARIABLE, password);
    try {
      Process p = pb.start();
      p.getOutputStream().close();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!p.waitFor(60, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        throw new CertificateIssueException("keytool " + command + " did not finish in 60 s");
      }
      if (p.exitValue() != 0) {
        throw new CertificateIssueException(
            "keytool " + command + " exited " + p.exitValue() + ": " + out.strip());
      }
    } catch (IOException e) {
      throw new CertificateIssueException("cannot run " + binary + ": " + e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CertificateIssueException("interrupted while keytool " + command + " ran");
    }
  }
}
