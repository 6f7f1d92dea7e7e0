package dev.tandem.extender.certs;

/** Certificates could not be issued or stored; the message says which step and why. */
public class CertificateIssueException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public CertificateIssueException(String message) {
    super(message);
  }
}
