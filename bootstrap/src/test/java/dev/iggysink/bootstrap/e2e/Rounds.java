package dev.iggysink.bootstrap.e2e;

import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Records that keep arriving while the members of a group come and go: rounds of {@code perRound} JSON records to
 * every partition of a topic, 150 ms apart, in the background until {@link #finish()} (or {@code maxRounds}, a bound
 * on what a slow machine produces meanwhile).
 */
final class Rounds {
    /** The record {@code i} of a round to a partition. */
    interface Payload {
        String json(int round, int partition, int i);
    }

    /** Records of {@link TableCatalog#clicksSchema()}: the round and a page. */
    static final Payload PAGES = (round, partition, i) -> "{\"round\":" + round + ",\"page\":\"/p/" + i + "\"}";

    private final AtomicInteger sent = new AtomicInteger();
    private final AtomicBoolean enough = new AtomicBoolean();
    private final int perRound;
    private final CompletableFuture<Void> producing;

    private Rounds(E2eFixture fx, String topic, int partitions, int perRound, int maxRounds, Payload payload) {
        this.perRound = perRound;
        this.producing = CompletableFuture.runAsync(() -> produce(fx, topic, partitions, maxRounds, payload));
    }

    static Rounds start(E2eFixture fx, String topic, int partitions, int perRound, int maxRounds, Payload payload) {
        return new Rounds(fx, topic, partitions, perRound, maxRounds, payload);
    }

    private void produce(E2eFixture fx, String topic, int partitions, int maxRounds, Payload payload) {
        try {
            for (int r = 0; r < maxRounds && !enough.get(); r++) {
                int round = r;
                for (int p = 0; p < partitions; p++) {
                    int partition = p;
                    fx.producer.sendJson(fx.stream, topic, p, perRound, i -> payload.json(round, partition, i));
                }
                sent.incrementAndGet();
                Thread.sleep(150);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Rounds sent so far. */
    int sent() {
        return sent.get();
    }

    /** Waits (60 s at most) until {@code n} rounds have been sent in all. */
    void awaitSent(int n) {
        await().atMost(Duration.ofSeconds(60)).until(() -> sent.get() >= n);
    }

    /** Waits (60 s at most) for {@code n} rounds more than have been sent now. */
    void awaitMore(int n) {
        awaitSent(sent.get() + n);
    }

    /** Stops after the round in progress; returns how many records went to each partition. */
    long finish() throws Exception {
        enough.set(true);
        producing.get(60, TimeUnit.SECONDS);
        return (long) sent.get() * perRound;
    }
}
