package dev.tandem.dra.prepare;

/**
 * One device of a claim's allocation ({@code status.allocation.devices.results[]}).
 *
 * @param request the claim's request it serves ({@code <request>} or {@code
 *     <request>/<subrequest>})
 * @param driver the driver whose slices published it
 * @param pool its pool
 * @param device its name in the pool
 */
public record AllocatedDevice(String request, String driver, String pool, String device) {}
