package dev.tandem.dra.publish;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tandem.fixtures.kube.MockApiServer;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * fabric8's mock API server in CRUD mode that drops ResourceSlice fields as kube-apiserver
 * 1.34–1.35 does with their feature gates off (its ResourceSlice strategy, {@code
 * dropDisabledFields}): the write succeeds and the slice stored lacks them. Counts the writes of
 * ResourceSlices.
 */
public final class GateOffApiServer implements AutoCloseable {

  private final AtomicInteger sliceWrites = new AtomicInteger();
  private final MockApiServer api;

  /** Starts a server dropping {@code fields} from every ResourceSlice written. */
  public GateOffApiServer(Set<DroppedField> fields) {
    api = MockApiServer.answeredBy(new Dropping(fields));
  }

  public KubernetesClient client() {
    return api.client();
  }

  /** ResourceSlices created or updated so far. */
  public int sliceWrites() {
    return sliceWrites.get();
  }

  @Override
  public void close() {
    api.close();
  }

  private final class Dropping extends KubernetesCrudDispatcher {
    private final ObjectMapper json = new ObjectMapper();
    private final Set<DroppedField> fields;

    Dropping(Set<DroppedField> fields) {
      this.fields = fields;
    }

    @Override
    public MockResponse handleCreate(RecordedRequest request) {
      return super.handleCreate(dropped(request));
    }

    @Override
    public MockResponse handleUpdate(RecordedRequest request) {
      return super.handleUpdate(dropped(request));
    }

    private RecordedRequest dropped(RecordedRequest request) {
      if (!request.getPath().contains("/resourceslices")) {
        return request;
      }
      sliceWrites.incrementAndGet();
      try {
        JsonNode slice = json.readTree(request.getUtf8Body());
        for (JsonNode device : slice.path("spec").path("devices")) {
          drop((ObjectNode) device);
        }
        return new RecordedRequest(
            request.getHttpVersion(),
            request.method(),
            request.getPath(),
            request.getHeaders(),
            new Buffer(json.writeValueAsBytes(slice)));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private void drop(ObjectNode device) {
      if (fields.contains(DroppedField.DEVICE_TAINTS)) {
        device.remove("taints");
      }
      if (fields.contains(DroppedField.CONSUMABLE_CAPACITY)) {
        device.remove("allowMultipleAllocations");
        device.path("capacity").forEach(c -> ((ObjectNode) c).remove("requestPolicy"));
      }
    }
  }
}
