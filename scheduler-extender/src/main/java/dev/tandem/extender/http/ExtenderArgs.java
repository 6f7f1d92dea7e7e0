package dev.tandem.extender.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.NodeDirectory;
import io.netty.buffer.ByteBuf;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.internal.buffer.BufferInternal;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * A decoded ExtenderArgs (filter and prioritize body): the pod and the candidate nodes, either as
 * names ({@code nodeCacheCapable: true}) or as Node objects.
 *
 * <p>Decoded as a stream, not as a tree: {@code NodeNames} (thousands of entries) is read name by
 * name and each is resolved to its directory slot from the parser's own buffer, so a known node
 * costs no string and no tree node. Only the pod (a few KB) and a NodeList become JSON objects.
 *
 * @param pod the v1.Pod
 * @param candidates the nodes, in input order
 * @param nodes the Node objects when the scheduler sent a NodeList; null in names mode
 */
public record ExtenderArgs(JsonObject pod, CandidateNodes candidates, List<JsonObject> nodes) {

  /**
   * Room for the names before growing: kube-scheduler sends at least 100, most often a few hundred.
   */
  private static final int EXPECTED_NAMES = 512;

  /**
   * Decodes a filter or prioritize body, resolving node names against {@code directory}.
   *
   * @throws BadRequest when the body is not an ExtenderArgs, saying what is wrong
   */
  public static ExtenderArgs decode(Buffer body, NodeDirectory directory) {
    JsonBodies.requireContent(body);
    try (JsonParser p = parser(body)) {
      return new Reader(p, body, directory).read();
    } catch (BadRequest e) {
      throw e;
    } catch (IOException | RuntimeException e) {
      throw JsonBodies.unreadable(e);
    }
  }

  /**
   * A parser over the body's own bytes where they are one array (not copied), else over a copy.
   * Either way its byte offsets are the body's positions, which {@link Reader#object} slices by.
   */
  private static JsonParser parser(Buffer body) throws IOException {
    if (body instanceof BufferInternal internal) {
      ByteBuf bytes = internal.getByteBuf();
      if (bytes.hasArray() && bytes.readerIndex() == 0 && bytes.readableBytes() == body.length()) {
        return JsonBodies.JSON.createParser(bytes.array(), bytes.arrayOffset(), body.length());
      }
    }
    return JsonBodies.JSON.createParser(body.getBytes());
  }

  /** One pass over the body's tokens. */
  private static final class Reader {
    private final JsonParser p;
    private final Buffer body;
    private final NodeDirectory directory;
    private JsonObject pod;
    private CandidateNodes names;
    private JsonObject nodeList;

    /** Set when Nodes is neither null nor an object: wrong only if NodeNames is null too. */
    private boolean nodesMalformed;

    Reader(JsonParser p, Buffer body, NodeDirectory directory) {
      this.p = p;
      this.body = body;
      this.directory = directory;
    }

    ExtenderArgs read() throws IOException {
      JsonToken first = p.nextToken();
      if (first == JsonToken.VALUE_NULL) {
        throw new BadRequest(JsonBodies.NULL_BODY);
      }
      if (first != JsonToken.START_OBJECT) {
        throw new BadRequest("body is not a JSON object but " + kind(first));
      }
      while (p.nextToken() == JsonToken.FIELD_NAME) {
        String field = p.currentName();
        JsonToken value = p.nextToken();
        switch (field) {
          case "Pod" -> pod = objectOrSkip(value);
          case "NodeNames" -> names = value == JsonToken.VALUE_NULL ? null : names(value);
          case "Nodes" -> {
            nodesMalformed = value != JsonToken.VALUE_NULL && value != JsonToken.START_OBJECT;
            nodeList = objectOrSkip(value);
          }
          default -> p.skipChildren();
        }
      }
      if (p.nextToken() != null) {
        throw new BadRequest("body is not a JSON object: data after the object's end");
      }
      if (pod == null) {
        throw new BadRequest("ExtenderArgs.Pod must be a v1.Pod object");
      }
      if (names != null) {
        return new ExtenderArgs(pod, names, null);
      }
      if (nodesMalformed) {
        throw new BadRequest("ExtenderArgs.Nodes must be a v1.NodeList object or null");
      }
      if (nodeList == null) {
        return new ExtenderArgs(pod, CandidateNodes.in(directory, 0), null);
      }
      return fromNodeList(pod, nodeList, directory);
    }

    private CandidateNodes names(JsonToken value) throws IOException {
      if (value != JsonToken.START_ARRAY) {
        throw new BadRequest("ExtenderArgs.NodeNames must be an array of strings or null");
      }
      CandidateNodes out = CandidateNodes.in(directory, EXPECTED_NAMES);
      JsonToken t;
      while ((t = p.nextToken()) != JsonToken.END_ARRAY) {
        if (t != JsonToken.VALUE_STRING) {
          throw new BadRequest("ExtenderArgs.NodeNames[" + out.size() + "] is not a string");
        }
        out.add(p.getTextCharacters(), p.getTextOffset(), p.getTextLength());
      }
      return out;
    }

    /** The object that starts at the current token, decoded from its own bytes. */
    private JsonObject object() throws IOException {
      int start = (int) p.currentTokenLocation().getByteOffset();
      if (start < 0) {
        // Jackson reads UTF-16 and UTF-32 as characters, without byte offsets
        throw new BadRequest("the body must be JSON in UTF-8, as kube-scheduler sends it");
      }
      p.skipChildren();
      int end = (int) p.currentLocation().getByteOffset();
      return new JsonObject(body.slice(start, end));
    }

    /**
     * The value when it is an object; else null, skipped (reported once the whole body is read).
     */
    private JsonObject objectOrSkip(JsonToken value) throws IOException {
      if (value == JsonToken.START_OBJECT) {
        return object();
      }
      p.skipChildren();
      return null;
    }
  }

  private static String kind(JsonToken t) {
    if (t == null) {
      return "nothing";
    }
    return switch (t) {
      case START_ARRAY -> "an array";
      case VALUE_STRING -> "a string";
      case VALUE_NUMBER_INT, VALUE_NUMBER_FLOAT -> "a number";
      case VALUE_TRUE, VALUE_FALSE -> "a boolean";
      default -> String.valueOf(t);
    };
  }

  private static ExtenderArgs fromNodeList(
      JsonObject pod, JsonObject nodeList, NodeDirectory directory) {
    Object items = nodeList.getValue("items");
    if (items == null) {
      return new ExtenderArgs(pod, CandidateNodes.in(directory, 0), List.of());
    }
    if (!(items instanceof JsonArray array)) {
      throw new BadRequest("ExtenderArgs.Nodes.items must be an array");
    }
    CandidateNodes names = CandidateNodes.in(directory, array.size());
    List<JsonObject> nodes = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      if (!(array.getValue(i) instanceof JsonObject node)
          || !(node.getValue("metadata") instanceof JsonObject meta)
          || !(meta.getValue("name") instanceof String name)) {
        throw new BadRequest("ExtenderArgs.Nodes.items[" + i + "] has no metadata.name");
      }
      names.add(name);
      nodes.add(node);
    }
    return new ExtenderArgs(pod, names, nodes);
  }
}
