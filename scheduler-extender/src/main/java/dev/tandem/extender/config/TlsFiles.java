package dev.tandem.extender.config;

import dev.tandem.kit.config.InvalidConfigurationException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.X509KeyManager;

/**
 * Checks the PEM files of a listener before it starts, so a wrong mount exits with the file, the
 * setting and the fix instead of a handshake failure on kube-scheduler's first call. Keys are read
 * as the server will read them (Vert.x's PEM loader: PKCS#8, PKCS#1 RSA, SEC1 EC).
 */
public final class TlsFiles {

  private static final byte[] PROBE = new byte[32];

  static {
    new SecureRandom().nextBytes(PROBE);
  }

  private TlsFiles() {}

  /**
   * The certificate and the key parse, and the key is the certificate's.
   *
   * @throws InvalidConfigurationException naming the file and the setting
   */
  public static void checkPair(String certFlag, Path cert, String keyFlag, Path key) {
    byte[] certPem = read(certFlag, cert);
    byte[] keyPem = read(keyFlag, key);
    certificates(certFlag, cert, certPem);
    X509KeyManager keys;
    try {
      KeyManagerFactory f =
          new PemKeyCertOptions()
              .setCertValue(Buffer.buffer(certPem))
              .setKeyValue(Buffer.buffer(keyPem))
              .getKeyManagerFactory(null);
      keys = (X509KeyManager) f.getKeyManagers()[0];
    } catch (Exception e) {
      throw new InvalidConfigurationException(
          keyFlag
              + " "
              + key
              + ": not a PEM private key for "
              + certFlag
              + " "
              + cert
              + " ("
              + e.getMessage()
              + "): mount tls.key of the same Secret as tls.crt");
    }
    String alias = alias(keys);
    if (alias == null) {
      throw new InvalidConfigurationException(
          keyFlag
              + " "
              + key
              + ": a key of another algorithm than RSA, EC or Ed25519: re-issue it");
    }
    PrivateKey privateKey = keys.getPrivateKey(alias);
    PublicKey publicKey = keys.getCertificateChain(alias)[0].getPublicKey();
    if (!signs(privateKey, publicKey)) {
      throw new InvalidConfigurationException(
          keyFlag
              + " "
              + key
              + " is not the key of "
              + certFlag
              + " "
              + cert
              + " (the certificate holds another public key): mount tls.crt and tls.key of one"
              + " Secret, or re-issue the certificate");
    }
  }

  /**
   * A PEM bundle of at least one CA certificate.
   *
   * @throws InvalidConfigurationException naming the file and the setting
   */
  public static void checkCa(String flag, Path file) {
    certificates(flag, file, read(flag, file));
  }

  private static Collection<? extends Certificate> certificates(
      String flag, Path file, byte[] pem) {
    try {
      Collection<? extends Certificate> all =
          CertificateFactory.getInstance("X.509")
              .generateCertificates(new ByteArrayInputStream(pem));
      if (all.isEmpty()) {
        throw new GeneralSecurityException("no certificate in it");
      }
      return all;
    } catch (GeneralSecurityException e) {
      throw new InvalidConfigurationException(
          flag
              + " "
              + file
              + ": not a PEM certificate ("
              + e.getMessage()
              + "): give the file that begins with -----BEGIN CERTIFICATE----- (tls.crt or"
              + " ca.crt of the Secret)");
    }
  }

  private static byte[] read(String flag, Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new InvalidConfigurationException(
          flag
              + " "
              + file
              + ": cannot read it ("
              + e
              + "): check the path and the mounted Secret");
    }
  }

  private static String alias(X509KeyManager keys) {
    for (String algorithm : new String[] {"RSA", "EC", "EdDSA", "Ed25519"}) {
      String[] aliases = keys.getServerAliases(algorithm, null);
      if (aliases != null && aliases.length > 0) {
        return aliases[0];
      }
    }
    return null;
  }

  private static boolean signs(PrivateKey privateKey, PublicKey publicKey) {
    String algorithm =
        switch (privateKey.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> privateKey.getAlgorithm();
        };
    try {
      Signature sign = Signature.getInstance(algorithm);
      sign.initSign(privateKey);
      sign.update(PROBE);
      byte[] signature = sign.sign();
      Signature verify = Signature.getInstance(algorithm);
      verify.initVerify(publicKey);
      verify.update(PROBE);
      return verify.verify(signature);
    } catch (GeneralSecurityException e) {
      return false;
    }
  }
}
