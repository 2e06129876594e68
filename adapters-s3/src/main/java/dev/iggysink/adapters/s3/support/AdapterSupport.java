package dev.iggysink.adapters.s3.support;

import java.net.URI;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** Small things both adapters need the same way. */
public final class AdapterSupport {
    /** Seed 000's startup probe key, at the bucket root whatever the prefix. */
    public static final String PROBE_KEY = ".iggy-sink-probe";
    /** Connecting should never take the whole request budget; a dead host is found out sooner. */
    private static final Duration MAX_CONNECT_TIMEOUT = Duration.ofSeconds(10);

    private AdapterSupport() {
    }

    /** An endpoint from the config: a bare {@code host[:port]} means https, as the Rust sink assumes. */
    public static URI endpoint(String configured) {
        String value = configured.strip();
        return URI.create(value.contains("://") ? value : "https://" + value);
    }

    public static Duration connectTimeout(Duration requestTimeout) {
        return requestTimeout.compareTo(MAX_CONNECT_TIMEOUT) < 0 ? requestTimeout : MAX_CONNECT_TIMEOUT;
    }

    /**
     * The pool multipart parts run on: {@code threads} daemon threads shared by every upload of one store, so the
     * parts in flight (and open connections for them) stay bounded however many files upload at once. Idle threads
     * exit.
     */
    public static ExecutorService partPool(int threads, String name) {
        AtomicInteger n = new AtomicInteger();
        ThreadPoolExecutor pool = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), r -> {
                    Thread t = new Thread(r, name + "-part-" + n.incrementAndGet());
                    t.setDaemon(true);
                    return t;
                });
        pool.allowCoreThreadTimeOut(true);
        return pool;
    }
}
