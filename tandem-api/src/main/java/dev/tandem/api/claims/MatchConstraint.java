package dev.tandem.api.claims;

import java.util.List;

/**
 * A {@code matchAttribute} constraint: every device allocated for the named requests (a request's
 * name covers each of its alternatives; {@code <request>/<subrequest>} only that one) has the
 * attribute, with one value.
 */
public record MatchConstraint(String attribute, List<String> requests) {

  public MatchConstraint {
    requests = List.copyOf(requests);
  }
}
