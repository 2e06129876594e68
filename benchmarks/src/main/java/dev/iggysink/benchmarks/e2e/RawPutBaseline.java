package dev.iggysink.benchmarks.e2e;

import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.adapters.s3.aws.AwsS3ObjectStore;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * The ceiling the sink is measured against: the same number of objects of the same sizes PUT straight to the same
 * store, through the sink's own {@link AwsS3ObjectStore} (AWS SDK v2, Apache client, same settings), by
 * {@code concurrency} threads, with the bytes ready in memory before the clock starts.
 */
final class RawPutBaseline {
    /**
     * What the timed PUTs took; {@code minioTicks} and {@code clientTicks} are the CPU clock ticks (user + system)
     * MinIO and this JVM (the PUTting client) used over them, {@code stealTicks} those the hypervisor held back from
     * the machine meanwhile; -1 when not known.
     */
    record Result(int objects, long bytes, long nanos, long minioTicks, long clientTicks, long stealTicks) {
        double seconds() {
            return nanos / 1e9;
        }
    }

    private RawPutBaseline() {
    }

    static Result run(StorageSettings settings, List<Long> sizes, int concurrency, String contentType,
                      OptionalLong minioPid) throws Exception {
        // One array per distinct size (files of equal records often have equal sizes), filled with printable bytes.
        Map<Long, byte[]> bodies = new HashMap<>();
        for (long s : sizes) bodies.computeIfAbsent(s, n -> body(Math.toIntExact(n)));
        ExecutorService pool = Executors.newFixedThreadPool(concurrency, r -> {
            Thread t = new Thread(r, "raw-put");
            t.setDaemon(true);
            return t;
        });
        try (ObjectStore store = new AwsS3ObjectStore(settings)) {
            // Warm the client up (first requests are slow), outside the clock, as the sink's is after its first files.
            List<Future<?>> warm = new ArrayList<>();
            for (int i = 0; i < concurrency * 4; i++) {
                int n = i;
                warm.add(pool.submit(() -> {
                    store.put("baseline-warmup/" + n, FileBytes.of(body(64 * 1024)), contentType);
                    return null;
                }));
            }
            for (Future<?> f : warm) f.get();
            List<Future<?>> puts = new ArrayList<>(sizes.size());
            long bytes = 0;
            long minioStart = SinkChild.cpuTicksOf(minioPid);
            long clientStart = SinkChild.ownCpuTicks();
            long stealStart = SinkChild.stealTicks();
            long start = System.nanoTime();
            for (int i = 0; i < sizes.size(); i++) {
                FileBytes content = FileBytes.of(bodies.get(sizes.get(i)));
                bytes += content.length();
                String key = String.format("baseline/%08d", i);
                puts.add(pool.submit(() -> {
                    store.put(key, content, contentType);
                    return null;
                }));
            }
            for (Future<?> f : puts) f.get();
            long nanos = System.nanoTime() - start;
            long minioEnd = SinkChild.cpuTicksOf(minioPid);
            long clientEnd = SinkChild.ownCpuTicks();
            long stealEnd = SinkChild.stealTicks();
            return new Result(sizes.size(), bytes, nanos, difference(minioStart, minioEnd),
                    difference(clientStart, clientEnd), difference(stealStart, stealEnd));
        } finally {
            pool.shutdownNow();
        }
    }

    /** {@code end - start} of two tick readings, -1 when either is unknown. */
    static long difference(long start, long end) {
        return start >= 0 && end >= start ? end - start : -1;
    }

    private static byte[] body(int size) {
        byte[] b = new byte[size];
        byte[] pattern = "{\"offset\":1,\"payload\":{\"msg\":\"lorem ipsum dolor sit amet\"}}\n".getBytes();
        for (int i = 0; i < size; i += pattern.length) {
            System.arraycopy(pattern, 0, b, i, Math.min(pattern.length, size - i));
        }
        return Arrays.copyOf(b, size);
    }
}
