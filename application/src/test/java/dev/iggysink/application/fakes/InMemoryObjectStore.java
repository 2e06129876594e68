package dev.iggysink.application.fakes;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * An object store in memory: a real implementation of the port, run through the same contract suite as the S3
 * adapters (adapters-s3), with scriptable failures for pipeline tests: {@link #failNext} queues failures consumed one
 * per put, {@link #down} fails every call until {@link #up}, {@link #failKeys} fails matching keys, and the
 * {@link #missingBucket} / {@link #denying} variants answer like a missing bucket or a wrong secret. Thread-safe.
 */
public final class InMemoryObjectStore implements ObjectStore {
    private enum Mode { OK, MISSING_BUCKET, DENIED }

    private final String bucket;
    private final Mode mode;
    private final NavigableMap<String, byte[]> objects = new TreeMap<>();
    private final Map<String, String> contentTypes = new TreeMap<>();
    private final Map<String, Map<String, String>> metadata = new TreeMap<>();
    private boolean ignoresConditions;
    private int creates;
    private int heads;
    private int deletes;
    private int heldNow;
    private Predicate<String> holdKeys = k -> false;
    private java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(0);
    private final Deque<StoreException> scripted = new ArrayDeque<>();
    private final List<String> putLog = new ArrayList<>();
    private final List<String> attempted = new ArrayList<>();
    private StoreException down;
    private Predicate<String> failKeys = k -> false;
    private Predicate<String> refuseKeys = k -> false;
    private Predicate<String> throwOnKeys = k -> false;
    private java.util.function.Supplier<? extends Throwable> thrown;
    private int puts;
    private int probes;
    private int lists;
    private long listedKeys;
    private Runnable afterNextList;
    private int overwrites;

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

    public static StoreException unavailable() {
        return new StoreException("503 Service Unavailable", true, 503, null, null);
    }

    public static StoreException forbidden() {
        return new StoreException("403 Forbidden on PutObject", false, 403, null, null);
    }

    public static StoreException tooMany(Duration retryAfter) {
        return new StoreException("429 Too Many Requests", true, 429, retryAfter, null);
    }

    /** The next {@code put} calls throw these, in order, and store nothing. */
    public synchronized InMemoryObjectStore failNext(StoreException... failures) {
        scripted.addAll(Arrays.asList(failures));
        return this;
    }

    /** Every call fails with {@code e} until {@link #up()}. */
    public synchronized void down(StoreException e) {
        down = e;
    }

    public synchronized void up() {
        down = null;
    }

    /** Puts of keys matching {@code keys} fail (retryably) until changed. */
    public synchronized void failKeys(Predicate<String> keys) {
        failKeys = keys;
    }

    /** Puts of keys matching {@code keys} are refused (403, not retryable) until changed. */
    public synchronized void refuseKeys(Predicate<String> keys) {
        refuseKeys = keys;
    }

    /**
     * Puts of keys matching {@code keys} throw what {@code throwable} supplies (a RuntimeException or an Error, as an
     * adapter bug or the JVM would) until changed.
     */
    public synchronized void throwOnKeys(Predicate<String> keys, java.util.function.Supplier<? extends Throwable> throwable) {
        throwOnKeys = keys;
        thrown = throwable;
    }

    /** A put of a whole array, for tests that seed the store. */
    public void put(String key, byte[] content, String contentType) throws StoreException {
        put(key, FileBytes.of(content), contentType);
    }

    /** As a store that ignores {@code If-None-Match}: {@link #create} overwrites and says it created. */
    public synchronized InMemoryObjectStore ignoringConditions() {
        ignoresConditions = true;
        return this;
    }

    /**
     * Puts and conditional creates of keys matching {@code keys} wait, before they store anything, until
     * {@link #releaseHeld()}: an upload (or a claim) in flight that lands late.
     */
    public synchronized void holdPuts(Predicate<String> keys) {
        holdKeys = keys;
        release = new java.util.concurrent.CountDownLatch(1);
    }

    /** Holds no further calls; those held so far stay held until {@link #releaseHeld()}. */
    public synchronized void holdNoMore() {
        holdKeys = k -> false;
    }

    /** Lets the held puts go on. */
    public void releaseHeld() {
        java.util.concurrent.CountDownLatch r;
        synchronized (this) {
            r = release;
            holdKeys = k -> false;
        }
        r.countDown();
    }

    @Override
    public void put(String key, FileBytes content, String contentType, Map<String, String> meta)
            throws StoreException {
        waitIfHeld(key);
        putNow(key, content, contentType, meta);
    }

    private void waitIfHeld(String key) throws StoreException {
        java.util.concurrent.CountDownLatch wait;
        synchronized (this) {
            wait = holdKeys.test(key) ? release : null;
            if (wait != null) heldNow++;
        }
        if (wait == null) return;
        try {
            wait.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("PUT " + key + " interrupted", true, 0, null, e);
        }
    }

    /** How many puts and creates have been held so far. */
    public synchronized int heldCalls() {
        return heldNow;
    }

    private synchronized void putNow(String key, FileBytes content, String contentType, Map<String, String> meta)
            throws StoreException {
        puts++;
        attempted.add(key);
        check("PUT", key);
        StoreException s = scripted.poll();
        if (s != null) throw s;
        if (key.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > 1024) {
            // As S3: 400 KeyTooLongError, which no retry can fix.
            throw new StoreException("PUT s3://" + bucket + "/" + key.substring(0, 40) + "... failed (400 KeyTooLongError)",
                    false, 400, null, null);
        }
        if (refuseKeys.test(key)) {
            throw new StoreException("PUT s3://" + bucket + "/" + key + " denied (403 AccessDenied).", false, 403,
                    null, null);
        }
        if (throwOnKeys.test(key)) sneakyThrow(thrown.get());
        if (failKeys.test(key)) throw unavailable();
        if (objects.put(key, content.toByteArray()) != null && !key.contains("_claims/")) overwrites++;
        contentTypes.put(key, contentType);
        metadata.put(key, Map.copyOf(meta));
        putLog.add(key);
    }

    @Override
    public synchronized java.util.Optional<Map<String, String>> metadata(String key) throws StoreException {
        heads++;
        check("HEAD", key);
        return objects.containsKey(key) ? java.util.Optional.of(metadata.getOrDefault(key, Map.of()))
                : java.util.Optional.empty();
    }

    @Override
    public boolean create(String key, byte[] content, Map<String, String> meta) throws StoreException {
        waitIfHeld(key);
        return createNow(key, content, meta);
    }

    /** A file written conditionally: counted as a create, held as puts and creates are. */
    @Override
    public boolean create(String key, FileBytes content, String contentType, Map<String, String> meta)
            throws StoreException {
        waitIfHeld(key);
        synchronized (this) {
            attempted.add(key);
            StoreException s = scripted.poll();
            if (s != null) throw s;
            if (!createNow(key, content.toByteArray(), meta)) return false;
            contentTypes.put(key, contentType);
            putLog.add(key);
            return true;
        }
    }

    private synchronized boolean createNow(String key, byte[] content, Map<String, String> meta)
            throws StoreException {
        creates++;
        check("PUT If-None-Match", key);
        if (failKeys.test(key)) throw unavailable();
        if (refuseKeys.test(key)) {
            throw new StoreException("PUT s3://" + bucket + "/" + key + " denied (403 AccessDenied).", false, 403,
                    null, null);
        }
        if (objects.containsKey(key) && !ignoresConditions) return false;
        objects.put(key, content.clone());
        metadata.put(key, Map.copyOf(meta));
        return true;
    }

    @Override
    public synchronized Versioned getVersioned(String key) throws StoreException {
        byte[] content = get(key);
        return new Versioned(content, etag(content));
    }

    /** Held as puts are; refused when the object is gone or another version (unless conditions are ignored). */
    @Override
    public boolean replace(String key, byte[] content, String contentType, String etag) throws StoreException {
        waitIfHeld(key);
        synchronized (this) {
            puts++;
            attempted.add(key);
            check("PUT If-Match", key);
            StoreException s = scripted.poll();
            if (s != null) throw s;
            if (refuseKeys.test(key)) {
                throw new StoreException("PUT s3://" + bucket + "/" + key + " denied (403 AccessDenied).", false, 403,
                        null, null);
            }
            if (failKeys.test(key)) throw unavailable();
            byte[] now = objects.get(key);
            if (!ignoresConditions && (now == null || !etag(now).equals(etag))) return false;
            if (now != null) overwrites++;
            objects.put(key, content.clone());
            contentTypes.put(key, contentType);
            metadata.put(key, Map.of());
            putLog.add(key);
            return true;
        }
    }

    /** As S3's ETag of a single PUT, a digest of the bytes: a version with other bytes has another. */
    private static String etag(byte[] content) {
        try {
            return "\"" + java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256")
                    .digest(content)) + "\"";
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java runtime has SHA-256", e);
        }
    }

    @Override
    public synchronized void delete(String key) throws StoreException {
        deletes++;
        check("DELETE", key);
        objects.remove(key);
        metadata.remove(key);
        contentTypes.remove(key);
    }

    /** One request for all of {@code keys}, as S3's DeleteObjects: each key counts as one {@link #deleteCalls}. */
    @Override
    public synchronized void delete(List<String> keys) throws StoreException {
        if (keys.size() > MAX_DELETE_BATCH) throw new IllegalArgumentException(keys.size() + " keys in one delete");
        check("DELETE OBJECTS", keys.isEmpty() ? "" : keys.get(0));
        for (String key : keys) delete(key);
    }

    /** Seeds an object with user metadata, as another writer would have left it. */
    public synchronized void seed(String key, byte[] content, Map<String, String> meta) {
        objects.put(key, content.clone());
        metadata.put(key, Map.copyOf(meta));
    }

    /** The user metadata of {@code key}, or null. */
    public synchronized Map<String, String> metadataOf(String key) {
        return metadata.get(key);
    }

    /** Calls of {@code create}, of {@code metadata} and of {@code delete}. */
    public synchronized int createCalls() {
        return creates;
    }

    public synchronized int headCalls() {
        return heads;
    }

    public synchronized int deleteCalls() {
        return deletes;
    }

    @Override
    public synchronized void probe() throws StoreException {
        check("PUT (startup probe)", ".iggy-sink-probe");
        probes++;
    }

    /** Runs {@code action} once, right after the next {@code list} has read the store (as another writer would). */
    public synchronized void afterNextList(Runnable action) {
        afterNextList = action;
    }

    @Override
    public List<StoredObject> list(String prefix) throws StoreException {
        return list(prefix, "", "");
    }

    @Override
    public List<StoredObject> list(String prefix, String startAfter, String until) throws StoreException {
        List<StoredObject> result = listNow(prefix, startAfter, until);
        Runnable after;
        synchronized (this) {
            after = afterNextList;
            afterNextList = null;
        }
        if (after != null) after.run();
        return result;
    }

    private synchronized List<StoredObject> listNow(String prefix, String startAfter, String until)
            throws StoreException {
        lists++;
        check("LIST", prefix + "*");
        List<StoredObject> result = new ArrayList<>();
        boolean after = startAfter.compareTo(prefix) >= 0;
        for (Map.Entry<String, byte[]> e : (after ? objects.tailMap(startAfter, false)
                : objects.tailMap(prefix, true)).entrySet()) {
            if (!e.getKey().startsWith(prefix)) break;
            if (!until.isEmpty() && e.getKey().compareTo(until) > 0) break;
            result.add(new StoredObject(e.getKey(), e.getValue().length));
        }
        listedKeys += result.size();
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

    @Override
    public synchronized byte[] get(String key, long from, int length) throws StoreException {
        byte[] content = get(key);
        int start = (int) Math.min(from, content.length);
        return java.util.Arrays.copyOfRange(content, start, (int) Math.min((long) start + length, content.length));
    }

    /**
     * A snapshot of every data object, by key: all but the sink's claims (under {@code _claims/}), which
     * {@link #claims()} shows.
     */
    public synchronized Map<String, byte[]> objects() {
        Map<String, byte[]> out = new TreeMap<>(objects);
        out.keySet().removeIf(k -> k.contains("_claims/"));
        return out;
    }

    /** The claims the sink has not removed yet, by key (not the partitions' {@code .owner} notes beside them). */
    public synchronized Map<String, byte[]> claims() {
        Map<String, byte[]> out = new TreeMap<>(objects);
        out.keySet().removeIf(k -> !k.contains("_claims/") || !k.endsWith(".claim"));
        return out;
    }

    /** The content type the last put of {@code key} gave, or null. */
    public synchronized String contentType(String key) {
        return contentTypes.get(key);
    }

    /** Calls of {@code put}, failed ones included. */
    public synchronized int putAttempts() {
        return puts;
    }

    /** Calls of {@code put} for keys matching {@code keys}, failed ones included. */
    public synchronized int putAttempts(Predicate<String> keys) {
        return (int) attempted.stream().filter(keys).count();
    }

    /** Calls of {@code list}, failed ones included. */
    public synchronized int listCalls() {
        return lists;
    }

    /** Keys every listing so far returned, counted once per listing. */
    public synchronized long listedKeys() {
        return listedKeys;
    }

    public synchronized int probes() {
        return probes;
    }

    /** Puts that replaced an existing data object (not the sink's notes under {@code _claims/}). */
    public synchronized int overwrites() {
        return overwrites;
    }

    /** Keys of the successful puts, in order. */
    public synchronized List<String> putLog() {
        return List.copyOf(putLog);
    }

    @Override
    public void close() {
        // nothing to release
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> void sneakyThrow(Throwable t) throws T {
        throw (T) t;
    }

    private void check(String operation, String key) throws StoreException {
        if (down != null) throw down;
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
