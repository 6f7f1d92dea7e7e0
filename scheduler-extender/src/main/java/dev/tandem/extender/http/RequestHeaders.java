package dev.tandem.extender.http;

import io.vertx.core.http.HttpHeaders;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;

/**
 * The headers of a verb's request checked before its body is read, per RFC 9110. kube-scheduler's
 * client (Go's net/http, {@code pkg/scheduler/extender.go}) sends a POST with {@code
 * Content-Length}, {@code Content-Type: application/json} and {@code Accept-Encoding: gzip}, no
 * {@code Expect} and an uncompressed body. Anything else is refused with a 4xx that says why:
 *
 * <ul>
 *   <li>an {@code Expect} other than {@code 100-continue} (unknown, empty, a list): 417 (§10.1.1);
 *   <li>a {@code Content-Encoding} other than {@code identity}: 415 (§15.5.16), since the body
 *       would otherwise be read as JSON while still coded.
 * </ul>
 *
 * Framing (chunked, both or neither length header, a transfer coding Netty does not know, an
 * oversized head) is Vert.x's and Netty's: a 400 or 431, or the body as framed. A platform handler,
 * so that Vert.x web lets it run before the body handler.
 */
final class RequestHeaders implements PlatformHandler {

  private static final int SHOWN = 80;

  @Override
  public void handle(RoutingContext ctx) {
    String expect = ctx.request().getHeader(HttpHeaders.EXPECT);
    if (expect != null && !expect.trim().equalsIgnoreCase("100-continue")) {
      ctx.fail(
          new BadRequest(
              417,
              "Expect: '"
                  + shown(expect)
                  + "' is not an expectation this server meets; only 100-continue is (RFC 9110"
                  + " §10.1.1): send the request without it"));
      return;
    }
    String coding = ctx.request().getHeader(HttpHeaders.CONTENT_ENCODING);
    if (coding != null && !coding.trim().equalsIgnoreCase("identity")) {
      ctx.fail(
          new BadRequest(
              415,
              "Content-Encoding: '"
                  + shown(coding)
                  + "' is not accepted (RFC 9110 §15.5.16); send the JSON body uncompressed, as"
                  + " kube-scheduler does"));
      return;
    }
    ctx.next();
  }

  private static String shown(String value) {
    return value.length() <= SHOWN ? value : value.substring(0, SHOWN) + "…";
  }
}
