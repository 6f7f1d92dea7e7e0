/**
 * The live adapter: {@link LiveSource} reads this machine through libhwloc, falls back to the sysfs
 * tree when hwloc is missing or finds no GPU or HCA, then adds port states from libibverbs.
 */
package dev.tandem.discovery.live;
