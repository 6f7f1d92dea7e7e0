package dev.tandem.extender.state;

import io.vertx.core.Future;

/** The two API writes of a bind: the plan annotation, then the Binding. */
public interface PodWriter {

  Future<Void> annotate(PodRef pod, String key, String value);

  Future<Void> bind(PodRef pod, String node);
}
