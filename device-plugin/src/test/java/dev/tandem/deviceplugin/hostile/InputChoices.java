package dev.tandem.deviceplugin.hostile;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import dev.tandem.fixtures.HostileTopologies;
import java.util.Random;

/**
 * A grammar's choices: the fuzzer's input while it lasts, then a generator seeded by it. libFuzzer
 * starts from inputs of a few bytes, which alone would choose the smallest of everything.
 */
public final class InputChoices implements HostileTopologies.Choices {

  private final FuzzedDataProvider data;
  private final Random more;

  private InputChoices(FuzzedDataProvider data) {
    this.data = data;
    this.more = new Random(data.consumeLong());
  }

  /** Takes the seed from {@code data} now, then chooses from what is left of it. */
  public static InputChoices of(FuzzedDataProvider data) {
    return new InputChoices(data);
  }

  @Override
  public int pick(int min, int max) {
    return data.remainingBytes() > 0
        ? data.consumeInt(min, max)
        : (int) (min + Math.floorMod(more.nextLong(), (long) max - min + 1));
  }

  /** True one time in {@code outOf}. */
  public boolean chance(int outOf) {
    return pick(0, outOf - 1) == 0;
  }

  /** Random bytes from the seeded generator. */
  public void nextBytes(byte[] into) {
    more.nextBytes(into);
  }
}
