package dev.iggysink.application.fakes;

import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * An object store in memory, with scriptable failures: a test-double that is a real implementation of the port.
 * {@link #failNext} queues failures consumed one per put; {@link #down} fails every put until cleared.
 */
public final class InMemoryObjectStore implements ObjectStore {
    private final Map<String, byte[]> objects = new ConcurrentSkipListMap<>();
    private final ConcurrentLinkedQueue<StoreException> scripted = new ConcurrentLinkedQueue<>();
    private final AtomicInteger puts = new AtomicInteger();
    private final AtomicInteger overwrites = new AtomicInteger();
    private final List<String> putLog = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile StoreException down;
    private volatile Predicate<String> failKeys = k -> false;

    public static StoreException unavailable() {
        return new StoreException("503 Service Unavailable", true, 503, null, null);
    }

    public static StoreException forbidden() {
        return new StoreException("403 Forbidden on PutObject", false, 403, null, null);
    }

    public static StoreException tooMany(Duration retryAfter) {
        return new StoreException("429 Too Many Requests", true, 429, retryAfter, null);
    }

    public void failNext(StoreException e) {
        scripted.add(e);
    }

    public void down(StoreException e) {
        down = e;
    }

    public void up() {
        down = null;
    }

    /** Keys matching fail (retryably) until changed. */
    public void failKeys(Predicate<String> keys) {
        failKeys = keys;
    }

    @Override
    public void put(String key, byte[] content, String contentType) throws StoreException {
        puts.incrementAndGet();
        StoreException d = down;
        if (d != null) throw d;
        StoreException s = scripted.poll();
        if (s != null) throw s;
        if (failKeys.test(key)) throw unavailable();
        if (objects.put(key, content.clone()) != null) overwrites.incrementAndGet();
        putLog.add(key);
    }

    @Override
    public void probe() throws StoreException {
        StoreException d = down;
        if (d != null) throw d;
    }

    @Override
    public List<StoredObject> list(String prefix) {
        List<StoredObject> out = new ArrayList<>();
        objects.forEach((k, v) -> {
            if (k.startsWith(prefix)) out.add(new StoredObject(k, v.length));
        });
        return out;
    }

    @Override
    public byte[] get(String key) throws StoreException {
        byte[] b = objects.get(key);
        if (b == null) throw new StoreException("404 no such key " + key, false, 404, null, null);
        return b.clone();
    }

    public Map<String, byte[]> objects() {
        return objects;
    }

    public int putAttempts() {
        return puts.get();
    }

    public int overwrites() {
        return overwrites.get();
    }

    public List<String> putLog() {
        synchronized (putLog) {
            return List.copyOf(putLog);
        }
    }

    @Override
    public void close() {
    }
}
