package dev.tandem.extender.verbs;

/**
 * How a bind ended.
 *
 * @param result metric label: {@code bound}, {@code bound_off_gang_rails}, {@code
 *     bound_without_plan}, {@code bound_without_topology}, {@code not_leader}, {@code unknown_pod},
 *     {@code invalid_policy}, {@code unknown_node}, {@code infeasible}, {@code api_error}
 * @param error the ExtenderBindingResult.Error text; empty on success
 */
public record BindResult(String result, String error) {

  static BindResult ok(String result) {
    return new BindResult(result, "");
  }
}
