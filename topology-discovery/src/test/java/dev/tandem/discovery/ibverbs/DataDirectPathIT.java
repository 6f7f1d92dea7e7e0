package dev.tandem.discovery.ibverbs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.tandem.discovery.DataDirectTies;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The Data Direct binding against the libraries installed here: Debian 12's rdma-core 44
 * (libibverbs1, ibverbs-providers), whose libmlx5 predates {@code
 * mlx5dv_get_data_direct_sysfs_path} (rdma-core 54).
 */
@DisplayName("libmlx5: Data Direct on Debian 12's rdma-core")
class DataDirectPathIT {

  @Test
  @DisplayName("rdma-core 44's libmlx5 lacks the symbol: the sysfs fallback's reason")
  void missingSymbolIsAReason() {
    List<String> notes = new ArrayList<>();

    DataDirectTies ties = new Ibverbs().dataDirect(notes);

    String reason =
        "libmlx5 lacks mlx5dv_get_data_direct_sysfs_path (rdma-core 54 and later have it; Debian"
            + " 12 ships rdma-core 44)";
    assertEquals(reason, ties.unavailable());
    assertTrue(ties.byIbDevice().isEmpty());
    assertEquals(List.of("ibverbs: Data Direct functions not asked: " + reason), notes);
  }

  @Test
  @DisplayName("an absent libmlx5 is a reason, not an error")
  void absentLibrary() {
    DataDirectTies ties =
        new Ibverbs("ibverbs", "mlx5-not-installed-here").dataDirect(new ArrayList<>());

    assertEquals("libmlx5 is not installed (Debian package ibverbs-providers)", ties.unavailable());
  }
}
