package dev.tandem.extender.certs;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Issues a {@link CertificateSet} with the JDK's keytool: ECDSA P-256 keys, a CA limited to signing
 * end certificates, a serving certificate whose subject alternative names are the Service's DNS
 * names (what kube-scheduler checks against {@code tlsConfig.serverName}) and a client certificate.
 */
public final class Issuer {

  /** Subject of the client certificate: how the extender's peers would name kube-scheduler. */
  public static final String SCHEDULER_SUBJECT = "CN=tandem-kube-scheduler";

  private static final String CA = "ca";

  private Issuer() {}

  /**
   * @param serverNames DNS names (or {@code ip:} addresses) the serving certificate covers
   * @param days validity of all three certificates
   */
  public static CertificateSet issue(List<String> serverNames, int days) {
    Path dir = null;
    try {
      dir = Files.createTempDirectory("tandem-certificates");
      String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
      Keytool keytool = new Keytool(dir.resolve("store.p12"), password);
      String validity = String.valueOf(days);
      keytool.run(
          "-genkeypair",
          keyArgs(
              CA,
              "CN=tandem-scheduler-extender-ca",
              validity,
              "-ext",
              "BC:c=ca:true,pathlen:0",
              "-ext",
              "KU:c=keyCertSign,cRLSign"));
      String ca = export(keytool, dir, CA);
      PemPair extender =
          signed(
              keytool,
              dir,
              password,
              "extender",
              "CN=" + serverNames.get(0),
              validity,
              "serverAuth",
              "SAN=" + subjectAltNames(serverNames));
      PemPair scheduler =
          signed(
              keytool, dir, password, "scheduler", SCHEDULER_SUBJECT, validity, "clientAuth", null);
      return new CertificateSet(ca, extender, scheduler);
    } catch (IOException e) {
      throw new CertificateIssueException("cannot write the working files: " + e.getMessage());
    } finally {
      delete(dir);
    }
  }

  private static String[] keyArgs(String alias, String subject, String validity, String... more) {
    List<String> args =
        Stream.concat(
                Stream.of(
                    "-alias",
                    alias,
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    subject,
                    "-validity",
                    validity,
                    "-startdate",
                    "-1H"),
                Stream.of(more))
            .toList();
    return args.toArray(String[]::new);
  }

  private static PemPair signed(
      Keytool keytool,
      Path dir,
      String password,
      String alias,
      String subject,
      String validity,
      String usage,
      String names)
      throws IOException {
    keytool.run("-genkeypair", keyArgs(alias, subject, validity));
    Path request = dir.resolve(alias + ".csr");
    Path cert = dir.resolve(alias + ".crt");
    keytool.run("-certreq", "-alias", alias, "-file", request.toString());
    List<String> args =
        new ArrayList<>(
            List.of(
                "-alias",
                CA,
                "-infile",
                request.toString(),
                "-outfile",
                cert.toString(),
                "-rfc",
                "-validity",
                validity,
                "-startdate",
                "-1H",
                "-ext",
                "KU:c=digitalSignature",
                "-ext",
                "EKU:c=" + usage));
    if (names != null) {
      args.addAll(List.of("-ext", names));
    }
    keytool.run("-gencert", args.toArray(String[]::new));
    return new PemPair(
        Files.readString(cert, StandardCharsets.US_ASCII), privateKey(dir, password, alias));
  }

  private static String export(Keytool keytool, Path dir, String alias) throws IOException {
    Path file = dir.resolve(alias + ".pem");
    keytool.run("-exportcert", "-alias", alias, "-rfc", "-file", file.toString());
    return Files.readString(file, StandardCharsets.US_ASCII);
  }

  /** The key as PKCS#8 PEM, which Vert.x, Go's crypto/tls and kubectl all read. */
  private static String privateKey(Path dir, String password, String alias) throws IOException {
    try (InputStream in = Files.newInputStream(dir.resolve("store.p12"))) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(in, password.toCharArray());
      Key key = store.getKey(alias, password.toCharArray());
      String body =
          Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII))
              .encodeToString(key.getEncoded());
      return "-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PRIVATE KEY-----\n";
    } catch (GeneralSecurityException e) {
      throw new CertificateIssueException("cannot read the key of " + alias + ": " + e);
    }
  }

  private static String subjectAltNames(List<String> names) {
    return names.stream()
        .map(n -> n.startsWith("ip:") || n.startsWith("dns:") ? n : "dns:" + n)
        .collect(Collectors.joining(","));
  }

  private static void delete(Path dir) {
    if (dir == null) {
      return;
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      // a temporary directory left behind holds nothing once the process ends
    }
  }
}
