/**
 * The hwloc adapter: libhwloc through JNA ({@link Hwloc}) exports this machine or loads an hwloc
 * XML file ({@link HwlocXmlSource}, its version checked by {@code HwlocXmlVersion}), and {@link
 * HwlocXmlReader} reads the export into a machine ({@code PciType}, {@code GpuNames}).
 */
package dev.tandem.discovery.hwloc;
