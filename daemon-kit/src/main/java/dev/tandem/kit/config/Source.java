package dev.tandem.kit.config;

/** Where a resolved value came from, strongest first. */
public enum Source {
  FLAG,
  ENVIRONMENT,
  FILE,
  DEFAULT
}
