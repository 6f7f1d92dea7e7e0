package dev.tandem.deviceplugin.config;

import dev.tandem.kit.config.InvalidConfigurationException;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** How HCAs become kubelet devices. */
public enum Mode {
  /** One device per HCA; id: its ibverbs name ({@code mlx5_0}). */
  HCA,
  /** One device per SR-IOV virtual function; id: the VF's PCI address. */
  SRIOV,
  /** N slots per HCA; ids {@code mlx5_0-slot-0} … {@code mlx5_0-slot-<N-1>}. */
  SHARED;

  public String value() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static Mode parse(String text) {
    for (Mode m : values()) {
      if (m.value().equals(text)) {
        return m;
      }
    }
    throw new InvalidConfigurationException(
        "unknown mode '"
            + text
            + "'; allowed: "
            + Arrays.stream(values()).map(Mode::value).collect(Collectors.joining(", ")));
  }
}
