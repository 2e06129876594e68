package dev.iggysink.adapters.s3.support;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.iggysink.application.port.out.StoreException;

/** Small things both adapters need the same way. */
public final class AdapterSupport {
    /** Seed 000's startup probe key, at the bucket root whatever the prefix. */
    public static final String PROBE_KEY = ".iggy-sink-probe";
    /** S3's limit on an object's user metadata: names and values, in bytes, all together. */
    public static final int MAX_METADATA_BYTES = 2048;
    public static final String METADATA_PREFIX = "x-amz-meta-";
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

    /**
     * {@code metadata} checked against what {@link dev.iggysink.application.port.out.ObjectStore#put} allows, sorted
     * by name. Checked here rather than left to the store: a value with a line break would end the header early
     * and a name in upper case would come back changed, and S3 refuses more than {@value #MAX_METADATA_BYTES} bytes
     * only after the body went up. Not retryable: the same metadata fails the same way.
     */
    public static Map<String, String> checkedMetadata(String operation, String bucket, String key,
                                                      Map<String, String> metadata) throws StoreException {
        if (metadata.isEmpty()) return Map.of();
        Map<String, String> sorted = new TreeMap<>();
        int bytes = 0;
        for (Map.Entry<String, String> e : metadata.entrySet()) {
            String name = e.getKey();
            String value = e.getValue();
            if (name == null || name.isEmpty() || !name.chars().allMatch(c -> c >= 'a' && c <= 'z'
                    || c >= '0' && c <= '9' || c == '-')) {
                throw badMetadata(operation, bucket, key, "name '" + printable(name)
                        + "' is not lower-case ASCII letters, digits and '-'");
            }
            if (value == null || !value.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)) {
                throw badMetadata(operation, bucket, key, "the value of '" + name + "' is not printable ASCII");
            }
            bytes += name.length() + value.length();
            sorted.put(name, value);
        }
        if (bytes > MAX_METADATA_BYTES) {
            throw badMetadata(operation, bucket, key, bytes + " bytes, more than the " + MAX_METADATA_BYTES
                    + " S3 takes");
        }
        return Collections.unmodifiableMap(sorted);
    }

    /** {@code metadata} (checked) as {@code x-amz-meta-*} headers, for clients that take raw headers. */
    public static Map<String, String> metadataHeaders(Map<String, String> metadata) {
        Map<String, String> headers = new LinkedHashMap<>();
        metadata.forEach((name, value) -> headers.put(METADATA_PREFIX + name, value));
        return headers;
    }

    /** User metadata as a store answered it, names in lower case whatever case the answer's headers had. */
    public static Map<String, String> lowerCaseNames(Map<String, String> metadata) {
        Map<String, String> lower = new TreeMap<>();
        metadata.forEach((name, value) -> lower.put(name.toLowerCase(Locale.ROOT), value));
        return Collections.unmodifiableMap(lower);
    }

    private static StoreException badMetadata(String operation, String bucket, String key, String why) {
        return new StoreException(operation + " " + StoreFailures.location(bucket, key) + " refused before"
                + " sending: user metadata " + why, false, 400, null, null);
    }

    private static String printable(String s) {
        if (s == null) return "null";
        StringBuilder b = new StringBuilder();
        for (byte c : s.getBytes(StandardCharsets.UTF_8)) {
            if (c >= 0x20 && c <= 0x7e) b.append((char) c);
            else b.append(String.format("\\x%02x", c & 0xff));
        }
        return b.toString();
    }
}
