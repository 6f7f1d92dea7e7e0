package dev.tandem.dra.prepare;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@DisplayName(
    "a checkpoint file that is not one: an error naming the file and the way out, never a crash")
class CheckpointTest {

  @TempDir Path dir;

  @ParameterizedTest
  @ValueSource(
      strings = {
        "null",
        "{\"version\":1,\"claims\":[null]}",
        "{\"version\":1,\"claims\":[{\"namespace\":\"team\",\"name\":\"c\",\"devices\":[]}]}",
        "{\"version\":2,\"claims\":[]}",
        "{\"version\":1,\"claims\":[{\"uid\":\"u\",\"devices\":null}]}",
        "not json",
        "{\"version\":1,\"claims\":[{\"uid\":\"../../etc\",\"devices\":[]}]}",
        "{\"version\":1,\"claims\":[{\"uid\":\"u1\",\"devices\":[],"
            + "\"cdiSpec\":\"../../etc/passwd\"}]}",
        "{\"version\":1,\"claims\":[{\"uid\":\"u1\",\"devices\":[],"
            + "\"deviceInfo\":[\"../../etc/x-device.json\"]}]}",
        "{\"version\":1,\"claims\":[{\"uid\":\"u1\",\"devices\":[{\"requests\":[],"
            + "\"cdiIds\":[]}]}]}"
      })
  void refused(String text) throws IOException {
    Path file = Files.writeString(dir.resolve("checkpoint.json"), text);
    CheckpointException e = assertThrows(CheckpointException.class, () -> Checkpoint.open(file));
    assertTrue(e.getMessage().contains(file.toString()), e.getMessage());
    assertTrue(e.getMessage().contains("Move it aside"), e.getMessage());
  }
}
