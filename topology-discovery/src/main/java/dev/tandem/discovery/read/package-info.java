/**
 * The reading rules the adapters share: XML parsed without external entities ({@link SafeXml}),
 * which PCI functions are GPUs, RDMA functions or bridges and what a port state means ({@link
 * DeviceRules}), NUMA node sets in their kernel and hwloc spellings ({@link NumaSet}), and a named
 * input file read with errors that name it ({@link NamedFile}).
 */
package dev.tandem.discovery.read;
