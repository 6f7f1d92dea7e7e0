package dev.tandem.deviceplugin.hostile;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.tandem.kubelet.deviceplugin.v1beta1.AllocateRequest;
import dev.tandem.kubelet.deviceplugin.v1beta1.PreferredAllocationRequest;
import java.util.List;

/**
 * What a drawn message asks for, read with the generated parser: the test's oracle. A message that
 * does not parse asks for {@link #NOT_A_MESSAGE}, which no plugin has.
 */
final class Requested {

  /** The id a message that does not parse stands for. */
  static final String NOT_A_MESSAGE = "<not a message>";

  /** One container request of GetPreferredAllocation: its size. */
  record Preferred(int size) {}

  private Requested() {}

  /** Every id of every container request of an Allocate message. */
  static List<String> allocate(byte[] message) {
    try {
      return AllocateRequest.parseFrom(message).getContainerRequestsList().stream()
          .flatMap(c -> c.getDevicesIdsList().stream())
          .toList();
    } catch (InvalidProtocolBufferException e) {
      return List.of(NOT_A_MESSAGE);
    }
  }

  /** The container requests of a GetPreferredAllocation message; none when it does not parse. */
  static List<Preferred> preferred(byte[] message) {
    try {
      return PreferredAllocationRequest.parseFrom(message).getContainerRequestsList().stream()
          .map(c -> new Preferred(c.getAllocationSize()))
          .toList();
    } catch (InvalidProtocolBufferException e) {
      return List.of(new Preferred(-1));
    }
  }
}
