package dev.tandem.deviceplugin.resource;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.tandem.deviceplugin.gpu.DriverProcfs;
import dev.tandem.fixtures.FakeSysfs;
import dev.tandem.fixtures.TestMachines;
import dev.tandem.topology.model.Machine;
import io.vertx.core.Vertx;
import io.vertx.junit5.VertxExtension;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@DisplayName("a resource's health check: the table's ListAndWatch list and its listeners")
@ExtendWith(VertxExtension.class)
class HealthCheckTest {

  @TempDir Path root;
  final Machine machine = TestMachines.twoSockets("n1");

  private DeviceTable gpus() {
    return new DeviceTable(
        new GpuDevices(machine, "nvidia.com/gpu", List.of(new DriverProcfs(root)), false, ""));
  }

  @Test
  @DisplayName(
      "a health check marks GPU-1 Unhealthy in the ListAndWatch list and tells the listeners once")
  void checkUpdatesTable(Vertx vertx) throws Exception {
    machine
        .gpus()
        .forEach(
            g -> {
              try {
                FakeSysfs.nvidiaGpu(root, g);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    Files.delete(
        root.resolve("proc/driver/nvidia/gpus")
            .resolve(machine.gpus().get(1).address().toString())
            .resolve("information"));
    DeviceTable table = gpus();
    List<Object> told = new CopyOnWriteArrayList<>();
    table.onChange(told::add);
    List<String> changed = new HealthCheck(vertx, table).run().await();
    assertEquals(List.of("GPU-1"), changed);
    assertEquals(
        Map.of("GPU-0", "Healthy", "GPU-1", "Unhealthy"),
        Map.of(
            table.list().getDevices(0).getID(), table.list().getDevices(0).getHealth(),
            table.list().getDevices(1).getID(), table.list().getDevices(1).getHealth()));
    assertEquals(1, told.size());
    assertEquals(List.of(), new HealthCheck(vertx, table).run().await());
  }
}
