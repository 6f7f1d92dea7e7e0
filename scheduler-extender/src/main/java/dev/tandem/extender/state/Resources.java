package dev.tandem.extender.state;

import dev.tandem.api.ResourceNames;

/** The extended resource names Tandem places together. */
public final class Resources {

  public static final String GPU = ResourceNames.GPU;
  public static final String HCA = ResourceNames.HCA;

  private Resources() {}
}
