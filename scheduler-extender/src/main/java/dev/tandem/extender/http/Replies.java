package dev.tandem.extender.http;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.tandem.extender.state.CandidateNodes;
import dev.tandem.extender.state.NodeDirectory;
import dev.tandem.extender.verbs.ChosenVictims;
import dev.tandem.extender.verbs.FilterVerdict;
import dev.tandem.extender.verbs.PreemptionResult;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;

/**
 * Encodes the extender's answers with the Go field names kube-scheduler decodes. Filter and
 * prioritize answers copy each known node's name from the {@link EncodedNames} of the directory it
 * was resolved against, kept for as long as that directory is the current one.
 */
public final class Replies {

  private static final JsonFactory JSON = new JsonFactory();

  /**
   * The names of the directory the last answer named: a directory is rebuilt only when nodes come
   * or go, so nearly every answer finds its names here.
   */
  private volatile EncodedNames encoded = EncodedNames.of(NodeDirectory.empty());

  private interface Body {
    void write(JsonGenerator g) throws IOException;
  }

  private static Buffer encode(int sizeHint, Body body) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(sizeHint);
    try (JsonGenerator g = JSON.createGenerator(out)) {
      body.write(g);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return Buffer.buffer(out.toByteArray());
  }

  /**
   * ExtenderFilterResult; answers in the mode of the request (names or Node objects). Written by
   * {@link JsonText}: the same bytes Jackson writes, with each distinct reason escaped once.
   */
  public Buffer filter(ExtenderArgs args, FilterVerdict v) {
    CandidateNodes names = args.candidates();
    EncodedNames encoded = encoded(names.directory());
    JsonText out = new JsonText(filterBytes(names, v));
    if (args.nodes() == null) {
      out.raw("{\"Nodes\":null,\"NodeNames\":[");
      boolean first = true;
      for (int i = 0; i < names.size(); i++) {
        if (v.passed()[i]) {
          name(first ? out : out.raw(','), encoded, names, i);
          first = false;
        }
      }
      out.raw(']');
    } else {
      out.raw("{\"Nodes\":{\"metadata\":{},\"items\":[");
      boolean first = true;
      for (int i = 0; i < args.nodes().size(); i++) {
        if (v.passed()[i]) {
          (first ? out : out.raw(',')).rawUtf8(args.nodes().get(i).encode());
          first = false;
        }
      }
      out.raw("]},\"NodeNames\":null");
    }
    reasons(out.raw(",\"FailedNodes\":"), encoded, names, v, false);
    reasons(out.raw(",\"FailedAndUnresolvableNodes\":"), encoded, names, v, true);
    return out.raw(",\"Error\":\"\"}").toBuffer();
  }

  /** ExtenderFilterResult carrying only an error (kube-scheduler fails the attempt). */
  static Buffer filterError(String error) {
    return encode(
        128,
        g -> {
          g.writeStartObject();
          g.writeNullField("Nodes");
          g.writeNullField("NodeNames");
          g.writeNullField("FailedNodes");
          g.writeNullField("FailedAndUnresolvableNodes");
          g.writeStringField("Error", error);
          g.writeEndObject();
        });
  }

  /** HostPriorityList: a bare array of {Host, Score}. */
  public Buffer priorities(CandidateNodes hosts, int[] scores) {
    EncodedNames encoded = encoded(hosts.directory());
    JsonText out = new JsonText((int) (16 + hosts.nameChars() + hosts.size() * 24L)).raw('[');
    for (int i = 0; i < scores.length; i++) {
      name((i == 0 ? out : out.raw(',')).raw("{\"Host\":"), encoded, hosts, i)
          .raw(",\"Score\":")
          .number(scores[i])
          .raw('}');
    }
    return out.raw(']').toBuffer();
  }

  /** ExtenderBindingResult. */
  static Buffer binding(String error) {
    return encode(
        32,
        g -> {
          g.writeStartObject();
          g.writeStringField("Error", error == null ? "" : error);
          g.writeEndObject();
        });
  }

  /**
   * ExtenderPreemptionResult: {@code NodeNameToMetaVictims}, the kept nodes with their victims'
   * UIDs; a node left out is no longer a candidate.
   */
  static Buffer preemption(PreemptionResult result) {
    return encode(
        64 + result.candidates().size() * 96,
        g -> {
          g.writeStartObject();
          g.writeObjectFieldStart("NodeNameToMetaVictims");
          for (Map.Entry<String, ChosenVictims> e : result.candidates().entrySet()) {
            g.writeObjectFieldStart(e.getKey());
            g.writeArrayFieldStart("Pods");
            for (String uid : e.getValue().uids()) {
              g.writeStartObject();
              g.writeStringField("UID", uid);
              g.writeEndObject();
            }
            g.writeEndArray();
            g.writeNumberField("NumPDBViolations", e.getValue().pdbViolations());
            g.writeEndObject();
          }
          g.writeEndObject();
          g.writeEndObject();
        });
  }

  static Buffer error(String message) {
    return new JsonObject().put("error", message).toBuffer();
  }

  /** One map of FailedNodes or FailedAndUnresolvableNodes, in input order. */
  private static void reasons(
      JsonText out,
      EncodedNames encoded,
      CandidateNodes names,
      FilterVerdict v,
      boolean unresolvable) {
    out.raw('{');
    boolean first = true;
    for (int i = 0; i < names.size(); i++) {
      if (v.failedIn(i, unresolvable)) {
        name(first ? out : out.raw(','), encoded, names, i).raw(':').cachedString(v.reasons()[i]);
        first = false;
      }
    }
    out.raw('}');
  }

  /** The i-th name: copied as plain bytes when the directory holds it, else escaped. */
  private static JsonText name(JsonText out, EncodedNames encoded, CandidateNodes names, int i) {
    int slot = names.slot(i);
    return slot >= 0 && encoded.plain(slot)
        ? out.quoted(encoded.bytes(), encoded.start(slot), encoded.end(slot))
        : out.string(names.name(i));
  }

  /** The names of the directory, encoded now if the last answer named another directory's. */
  private EncodedNames encoded(NodeDirectory directory) {
    EncodedNames e = encoded;
    if (!e.encodes(directory)) {
      e = EncodedNames.of(directory);
      encoded = e;
    }
    return e;
  }

  /**
   * The answer's size in names mode, a little over for escapes, so that the writer does not grow:
   * growing copied the whole answer several times per request at thousands of nodes.
   */
  private static int filterBytes(CandidateNodes names, FilterVerdict v) {
    long bytes = 160 + names.nameChars() + names.size() * 4L;
    for (String reason : v.reasons()) {
      bytes += reason == null ? 0 : reason.length() + 4;
    }
    return (int) Math.min(Integer.MAX_VALUE - 8, bytes + (bytes >> 4));
  }
}
