/**
 * The libibverbs adapter: RDMA port states through JNA ({@link Ibverbs}), added to a machine
 * another source read; an absent library is a note, not an error.
 */
package dev.tandem.discovery.ibverbs;
