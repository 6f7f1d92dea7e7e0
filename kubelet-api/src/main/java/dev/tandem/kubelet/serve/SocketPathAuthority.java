package dev.tandem.kubelet.serve;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http2.Http2ConnectionHandler;
import io.netty.handler.codec.http2.Http2Exception;
import io.netty.handler.codec.http2.Http2FrameListener;
import io.netty.handler.codec.http2.Http2FrameListenerDecorator;
import io.netty.handler.codec.http2.Http2Headers;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.net.HostAndPort;
import io.vertx.core.net.impl.ConnectionBase;

/**
 * Takes a request whose {@code :authority} is not a {@code host[:port]} as one for {@code
 * localhost}, instead of letting Vert.x reset it as malformed.
 *
 * <p>The kubelet's plugin watcher dials a registration socket by its path without {@code
 * grpc.WithAuthority} ({@code pluginmanager/operationexecutor}, {@code dial}), so grpc-go sends the
 * socket's path as {@code :authority} ({@code var/lib/kubelet/plugins_registry/…}); Vert.x answers
 * such a request with {@code RST_STREAM PROTOCOL_ERROR} and the kubelet never registers the plugin.
 * Over a Unix socket the authority names nothing, so nothing is lost.
 */
final class SocketPathAuthority extends Http2FrameListenerDecorator {

  private SocketPathAuthority(Http2FrameListener listener) {
    super(listener);
  }

  /** Installs itself on an HTTP/2 connection's decoder; an HTTP/1 connection is left alone. */
  static void install(HttpConnection connection) {
    if (!(connection instanceof ConnectionBase base)) {
      return;
    }
    Http2ConnectionHandler handler = base.channel().pipeline().get(Http2ConnectionHandler.class);
    if (handler != null && !(handler.decoder().frameListener() instanceof SocketPathAuthority)) {
      handler.decoder().frameListener(new SocketPathAuthority(handler.decoder().frameListener()));
    }
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int padding,
      boolean endOfStream)
      throws Http2Exception {
    super.onHeadersRead(ctx, streamId, hostAuthority(headers), padding, endOfStream);
  }

  @Override
  public void onHeadersRead(
      ChannelHandlerContext ctx,
      int streamId,
      Http2Headers headers,
      int streamDependency,
      short weight,
      boolean exclusive,
      int padding,
      boolean endOfStream)
      throws Http2Exception {
    super.onHeadersRead(
        ctx,
        streamId,
        hostAuthority(headers),
        streamDependency,
        weight,
        exclusive,
        padding,
        endOfStream);
  }

  static Http2Headers hostAuthority(Http2Headers headers) {
    CharSequence authority = headers.authority();
    if (authority != null && HostAndPort.parseAuthority(authority.toString(), -1) == null) {
      headers.authority("localhost");
    }
    return headers;
  }
}
