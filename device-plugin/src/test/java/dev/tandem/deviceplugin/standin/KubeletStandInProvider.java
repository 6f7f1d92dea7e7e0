package dev.tandem.deviceplugin.standin;

import io.vertx.core.Vertx;
import io.vertx.junit5.ParameterClosingConsumer;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxExtensionParameterProvider;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;

/**
 * A {@link KubeletStandIn} as a parameter of vertx-junit5's {@link VertxExtension}: serving on
 * {@code kubelet.sock} in a directory of its own ({@link KubeletStandIn#dir()}, where the plugins'
 * sockets go too), on the test's Vert.x. A test declares both, Vert.x first:
 *
 * <pre>{@code
 * @ExtendWith(VertxExtension.class)
 * class SomeIT {
 *   @BeforeEach
 *   void setUp(Vertx vertx, KubeletStandIn kubelet) { ... }
 * }
 * }</pre>
 *
 * After the test (its {@code @AfterEach} methods have stopped the plugins) the stand-in stops and
 * its directory is removed, before the Vert.x instance closes. Registered in {@code
 * META-INF/services/io.vertx.junit5.VertxExtensionParameterProvider}.
 */
public final class KubeletStandInProvider
    implements VertxExtensionParameterProvider<KubeletStandIn> {

  @Override
  public Class<KubeletStandIn> type() {
    return KubeletStandIn.class;
  }

  @Override
  public String key() {
    return KubeletStandIn.class.getName();
  }

  @Override
  public KubeletStandIn newInstance(ExtensionContext extension, ParameterContext parameter) {
    KubeletStandIn kubelet = new KubeletStandIn(vertx(extension, parameter), directory());
    kubelet.start().await();
    return kubelet;
  }

  @Override
  public ParameterClosingConsumer<KubeletStandIn> parameterClosingConsumer() {
    return kubelet -> kubelet.close().await();
  }

  /** The Vert.x instance VertxExtension resolved for this test (or its class) already. */
  private static Vertx vertx(ExtensionContext extension, ParameterContext parameter) {
    Object held = extension.getStore(Namespace.GLOBAL).get(VertxExtension.VERTX_INSTANCE_KEY);
    if (held instanceof Supplier<?> scoped && scoped.get() instanceof Vertx vertx) {
      return vertx;
    }
    throw new ParameterResolutionException(
        "a KubeletStandIn runs on the test's Vert.x: declare a Vertx parameter before it in "
            + parameter.getDeclaringExecutable());
  }

  private static Path directory() {
    try {
      return Files.createTempDirectory("kubelet-");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the kubelet stand-in's directory", e);
    }
  }
}
