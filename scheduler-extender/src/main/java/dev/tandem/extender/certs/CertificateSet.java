package dev.tandem.extender.certs;

/**
 * What one issue produces: a CA, the extender's serving certificate and kube-scheduler's client
 * certificate, both signed by it. The CA's key is not kept: re-issuing makes a new CA.
 *
 * @param ca the CA certificate (PEM): the extender's {@code --client-ca} and kube-scheduler's
 *     {@code tlsConfig.caFile}
 * @param extender the serving certificate (extended key usage serverAuth) for the Service's names
 * @param scheduler the client certificate (extended key usage clientAuth)
 */
public record CertificateSet(String ca, PemPair extender, PemPair scheduler) {}
