package dev.tandem.agent.bench;

import dev.tandem.fixtures.AotCacheTraining;

/**
 * Writes the agent's AOT cache (JEP 514, {@code -XX:AOTCacheOutput}): the shaded jar runs {@code
 * run} as its own process with the DaemonSet's JVM options through {@link AgentMemory}'s workload
 * (a discovery of the XE8640 fixture, its NodeTopology published to the fabric8 mock API server,
 * the allocation audit's first rounds), and its JVM writes the cache as SIGTERM ends it. The build
 * runs this after shading the jar (the root POM's {@code aot-cache} execution); the image ships the
 * cache and the DaemonSet names it with {@code -XX:AOTCache}. A training that fails leaves no cache
 * and fails no build ({@link AotCacheTraining}).
 *
 * <pre>
 * java -cp target/test-classes:target/classes:$(cat target/test.classpath) \
 *     dev.tandem.agent.bench.AotTraining JAR CACHE [seconds after the first publish]
 * </pre>
 */
public final class AotTraining {

  private AotTraining() {}

  public static void main(String[] args) throws Exception {
    AotCacheTraining.train(
        args,
        "node topology agent",
        "agent-aot-training",
        AgentMemory.DAEMONSET_OPTIONS,
        3,
        (jvm, jar, dir, seconds) -> AgentMemory.run(jvm, jar, AgentMemory.fixture(), dir, seconds));
  }
}
