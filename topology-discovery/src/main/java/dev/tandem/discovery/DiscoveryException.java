package dev.tandem.discovery;

import java.util.function.Supplier;

/**
 * Discovery could not read an input it was told to use: a missing, unreadable or invalid file, or a
 * library that is absent or of an unsupported version. The message names the file or library and
 * the reason.
 */
public class DiscoveryException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  public DiscoveryException(String message) {
    super(message);
  }

  public DiscoveryException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * Runs a reader of the input {@code what}, so that every refusal names it: a value that breaks
   * its rule (a number, a PCI address, an id given twice) becomes a DiscoveryException naming the
   * input, as does a DiscoveryException raised without it.
   */
  public static <T> T naming(String what, Supplier<T> reader) {
    try {
      return reader.get();
    } catch (DiscoveryException e) {
      if (e.getMessage() != null && e.getMessage().contains(what)) {
        throw e;
      }
      throw new DiscoveryException(what + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new DiscoveryException(what + " is not a valid topology: " + e.getMessage(), e);
    }
  }
}
