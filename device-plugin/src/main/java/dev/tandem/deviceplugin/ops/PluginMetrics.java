package dev.tandem.deviceplugin.ops;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The device plugin's Prometheus metrics, each labelled by the extended resource it is about.
 *
 * <ul>
 *   <li>{@code tandem_device_plugin_registered{resource}}: 1 while registered with the kubelet;
 *   <li>{@code tandem_device_plugin_registrations_total{resource,result}}: registration attempts,
 *       {@code registered} or {@code failed};
 *   <li>{@code tandem_device_plugin_health_transitions_total{resource,device,to}}: a device turning
 *       {@code healthy} or {@code unhealthy} after the first reading;
 *   <li>{@code tandem_device_plugin_preferred_allocations_total{resource,outcome}}: containers'
 *       GetPreferredAllocation answers by what guided them ({@code followed_plan}, {@code
 *       followed_gpus}, {@code fallback});
 *   <li>{@code tandem_device_plugin_allocate_errors_total{resource}}: Allocate calls refused.
 * </ul>
 */
public final class PluginMetrics {

  /** The outcomes of GetPreferredAllocation, as labels. */
  public static final List<String> OUTCOMES = List.of("followed_plan", "followed_gpus", "fallback");

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final Map<String, AtomicInteger> registered = new ConcurrentHashMap<>();

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition of every metric. */
  public String scrape() {
    return registry.scrape();
  }

  /** Declares a served resource: its series exist from now on, at 0. */
  public void serving(String resource) {
    registered.computeIfAbsent(
        resource,
        r -> {
          AtomicInteger value = new AtomicInteger();
          Gauge.builder("tandem_device_plugin_registered", value, AtomicInteger::get)
              .description("1 while the resource is registered with the kubelet")
              .tag("resource", r)
              .register(registry);
          return value;
        });
    registrations(resource, "registered");
    registrations(resource, "failed");
    OUTCOMES.forEach(o -> preferred(resource, o));
    allocateErrors(resource);
  }

  /** A registration attempt ended: registered, or failed. */
  public void registration(String resource, boolean ok) {
    registrations(resource, ok ? "registered" : "failed").increment();
    registered(resource, ok);
  }

  /** Whether the resource is registered now (false while re-registering or stopped). */
  public void registered(String resource, boolean yes) {
    AtomicInteger value = registered.get(resource);
    if (value != null) {
      value.set(yes ? 1 : 0);
    }
  }

  /** A device's health changed after the first reading. */
  public void healthChanged(String resource, String device, boolean healthy) {
    Counter.builder("tandem_device_plugin_health_transitions")
        .description("Devices turning healthy or unhealthy after the first reading")
        .tag("resource", resource)
        .tag("device", device)
        .tag("to", healthy ? "healthy" : "unhealthy")
        .register(registry)
        .increment();
  }

  /** A container's GetPreferredAllocation was answered, guided as {@code outcome} says. */
  public void preferredAnswered(String resource, String outcome) {
    preferred(resource, outcome).increment();
  }

  /** An Allocate call was refused. */
  public void allocateFailed(String resource) {
    allocateErrors(resource).increment();
  }

  private Counter registrations(String resource, String result) {
    return Counter.builder("tandem_device_plugin_registrations")
        .description("Registration attempts with the kubelet, by result")
        .tag("resource", resource)
        .tag("result", result)
        .register(registry);
  }

  private Counter preferred(String resource, String outcome) {
    return Counter.builder("tandem_device_plugin_preferred_allocations")
        .description("Containers' preferred allocations, by what guided them")
        .tag("resource", resource)
        .tag("outcome", outcome)
        .register(registry);
  }

  private Counter allocateErrors(String resource) {
    return Counter.builder("tandem_device_plugin_allocate_errors")
        .description("Allocate calls refused")
        .tag("resource", resource)
        .register(registry);
  }
}
