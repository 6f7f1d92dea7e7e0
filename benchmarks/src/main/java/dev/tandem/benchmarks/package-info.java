/** Benchmarks and load harnesses for Tandem's hot paths; figures go to docs/performance.md. */
package dev.tandem.benchmarks;
