package dev.tandem.dra.prepare;

/**
 * Text from the kubelet or the API server (a claim's namespace, name or UID, a device or pool name)
 * as an error message shows it: control characters and lone surrogates escaped ({@code \\u0000}),
 * so that the message is one line of valid UTF-8 whatever came in, and at most {@link #SHOWN}
 * characters of it, so that one claim's error stays short however long the name (the kubelet puts
 * the error in a pod event). A well-formed Kubernetes name is shown as it is.
 */
public final class UntrustedText {

  /** The most characters of one value shown: the longest Kubernetes object name (253). */
  public static final int SHOWN = 253;

  private UntrustedText() {}

  /** {@code s} as a message shows it; {@code (none)} for null. */
  public static String shown(String s) {
    return shown(s, SHOWN);
  }

  /** {@code s} as a message shows it, at most {@code max} characters of it. */
  public static String shown(String s, int max) {
    if (s == null) {
      return "(none)";
    }
    StringBuilder b = new StringBuilder(Math.min(s.length(), max) + 32);
    int end = Math.min(s.length(), max);
    for (int i = 0; i < end; i++) {
      char c = s.charAt(i);
      boolean pair =
          Character.isHighSurrogate(c)
              && i + 1 < s.length()
              && Character.isLowSurrogate(s.charAt(i + 1));
      if (pair) {
        b.append(c).append(s.charAt(++i));
      } else if (Character.isISOControl(c) || Character.isSurrogate(c)) {
        b.append(String.format("\\u%04x", (int) c));
      } else {
        b.append(c);
      }
    }
    if (s.length() > end) {
      b.append("… (").append(s.length()).append(" characters)");
    }
    return b.toString();
  }
}
