package dev.tandem.kit.kube;

import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.net.http.HttpClient;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * fabric8's JDK HTTP client on a bounded pool. Without one, the JDK client runs its work on a
 * cached pool that starts a thread whenever none is free, so a burst of API responses (an
 * informer's relist, a bind storm) grows the daemon by a thread per response in flight. Here at
 * most {@code threads} daemon threads, named {@code kube-http-N}, run it, the rest queues, and idle
 * threads end after 30 s.
 */
final class BoundedJdkHttp extends JdkHttpClientFactory {

  static final String THREAD_PREFIX = "kube-http-";

  private final ThreadPoolExecutor executor;

  BoundedJdkHttp(int threads) {
    AtomicInteger n = new AtomicInteger();
    ThreadFactory factory =
        r -> {
          Thread t = new Thread(r, THREAD_PREFIX + n.incrementAndGet());
          t.setDaemon(true);
          return t;
        };
    executor =
        new ThreadPoolExecutor(
            threads, threads, 30, TimeUnit.SECONDS, new LinkedBlockingQueue<>(), factory);
    executor.allowCoreThreadTimeOut(true);
  }

  @Override
  protected void additionalConfig(HttpClient.Builder builder) {
    builder.executor(executor);
  }
}
