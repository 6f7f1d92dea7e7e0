package dev.tandem.extender.certs;

/**
 * A certificate and its private key, PEM-encoded as a {@code kubernetes.io/tls} Secret holds them.
 *
 * @param certificate the {@code tls.crt} text
 * @param key the {@code tls.key} text (PKCS#8)
 */
public record PemPair(String certificate, String key) {}
