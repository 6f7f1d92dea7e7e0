package dev.tandem.api.crd;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class AuditEntryJsonTest {

  @Test
  @DisplayName("rails: written as the CRD's `rails` and read back; absent when the pod has none")
  void rails() {
    AuditEntry railed =
        new AuditEntry("u", "ml", "w-0", "PIX", "switch/required", true, List.of(4, 5));
    String json = Serialization.asJson(railed);
    assertTrue(json.contains("\"rails\":[4,5]"), json);
    assertEquals(railed, Serialization.unmarshal(json, AuditEntry.class));
    AuditEntry none = new AuditEntry("u", "ml", "w-1", "PIX", "switch/required", true);
    String bare = Serialization.asJson(none);
    assertFalse(bare.contains("rails"), bare);
    assertEquals(none, Serialization.unmarshal(bare, AuditEntry.class));
  }
}
