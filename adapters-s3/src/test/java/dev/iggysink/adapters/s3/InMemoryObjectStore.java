package dev.iggysink.adapters.s3;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;

import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;

/**
 * A fake {@link ObjectStore}: one bucket in memory. It passes the same {@link ObjectStoreContract} as the real
 * adapters, so tests of the pipeline can trust it. Beyond the port it can be scripted: {@link #failNext} queues
 * failures for the next calls of {@code put}, and the factories give a store whose bucket is missing or whose
 * credentials are refused. Uses only the port types, so it can move to application's test sources as is.
 * Thread-safe.
 */
public final class InMemoryObjectStore implements ObjectStore {
    private enum Mode { OK, MISSING_BUCKET, DENIED }

    private final String bucket;
    private final Mode mode;
    private final NavigableMap<String, byte[]> objects = new TreeMap<>();
    private final Map<String, String> contentTypes = new TreeMap<>();
    private final Deque<StoreException> scriptedPutFailures = new ArrayDeque<>();
    private int puts;
    private int probes;

    private InMemoryObjectStore(String bucket, Mode mode) {
        this.bucket = bucket;
        this.mode = mode;
    }

    public InMemoryObjectStore() {
        this("in-memory", Mode.OK);
    }

    /** Every call fails as on a bucket that does not exist (404, not retryable). */
    public static InMemoryObjectStore missingBucket(String bucket) {
        return new InMemoryObjectStore(bucket, Mode.MISSING_BUCKET);
    }

    /** Every call fails as with a wrong secret (403, not retryable). */
    public static InMemoryObjectStore denying() {
        return new InMemoryObjectStore("in-memory", Mode.DENIED);
    }

    /** The next {@code put} calls throw these, in order, and store nothing. */
    public synchronized InMemoryObjectStore failNext(StoreException... failures) {
        scriptedPutFailures.addAll(Arrays.asList(failures));
        return this;
    }

    @Override
    public synchronized void put(String key, byte[] content, String contentType) throws StoreException {
        check("PUT", key);
        puts++;
        StoreException scripted = scriptedPutFailures.poll();
        if (scripted != null) {
            throw scripted;
        }
        objects.put(key, content.clone());
        contentTypes.put(key, contentType);
    }

    @Override
    public synchronized void probe() throws StoreException {
        check("PUT (startup probe)", ".iggy-sink-probe");
        probes++;
    }

    @Override
    public synchronized List<StoredObject> list(String prefix) throws StoreException {
        check("LIST", prefix + "*");
        List<StoredObject> result = new ArrayList<>();
        for (Map.Entry<String, byte[]> e : objects.tailMap(prefix, true).entrySet()) {
            if (!e.getKey().startsWith(prefix)) {
                break;
            }
            result.add(new StoredObject(e.getKey(), e.getValue().length));
        }
        return result;
    }

    @Override
    public synchronized byte[] get(String key) throws StoreException {
        check("GET", key);
        byte[] content = objects.get(key);
        if (content == null) {
            throw new StoreException("GET s3://" + bucket + "/" + key + " failed (404 NoSuchKey)", false, 404, null,
                    null);
        }
        return content.clone();
    }

    /** The content type the last put of {@code key} gave, or null. */
    public synchronized String contentType(String key) {
        return contentTypes.get(key);
    }

    /** Calls of {@code put}, failed ones included. */
    public synchronized int puts() {
        return puts;
    }

    public synchronized int probes() {
        return probes;
    }

    @Override
    public void close() {
        // nothing to release
    }

    private void check(String operation, String key) throws StoreException {
        String where = operation + " s3://" + bucket + "/" + key;
        switch (mode) {
            case MISSING_BUCKET -> throw new StoreException(where + " failed: bucket '" + bucket + "' does not exist"
                    + " (404 NoSuchBucket). The sink does not create buckets; create it first.", false, 404, null, null);
            case DENIED -> throw new StoreException(where + " denied (403 AccessDenied).", false, 403, null, null);
            case OK -> {
            }
        }
    }
}
