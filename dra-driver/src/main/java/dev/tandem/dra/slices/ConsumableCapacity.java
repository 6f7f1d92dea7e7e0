package dev.tandem.dra.slices;

/**
 * A consumable capacity of a device that many claims may share ({@code allowMultipleAllocations}):
 * how much the device has, and how much a claim that names no amount takes ({@code
 * requestPolicy.default}).
 *
 * @param value the device's whole capacity, at least 1
 * @param requestDefault what a request without an amount for it consumes, 1 to {@code value}
 */
public record ConsumableCapacity(long value, long requestDefault) {

  public ConsumableCapacity {
    if (value < 1 || requestDefault < 1 || requestDefault > value) {
      throw new IllegalArgumentException(
          "a capacity needs a value of at least 1 and a default request between 1 and it, got "
              + value
              + " and "
              + requestDefault);
    }
  }
}
