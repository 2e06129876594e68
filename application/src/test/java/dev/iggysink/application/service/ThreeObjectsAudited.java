package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.DeliverySettings;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.StatusSnapshot;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.InstantSource;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The self-audit tests' starting point: a sink of partition 0 on an in-memory store with 300 records committed in
 * three objects of 100, the self-audit at its default budget and run by the test, not in the background. The cases
 * that read the same under every key layout are here, run once per layout.
 */
abstract class ThreeObjectsAudited {
    static final Duration WAIT = Duration.ofSeconds(20);
    static final String DIR = "iggy/raw/application_logs/api_requests/2026-03-16/14/";

    final StreamSettings stream = TestSettings.stream("application_logs", "api_requests");
    final ScriptedMessageSource source = new ScriptedMessageSource("application_logs", "api_requests", 1);
    /** The objects as stored, where a test plants its faults. */
    final InMemoryObjectStore objects = new InMemoryObjectStore();
    private final UnaryOperator<SinkSettings> layout;
    private final String first;
    private final String middle;
    private final String last;
    SinkService sink;

    /** {@code first}, {@code middle}, {@code last}: the keys of the three objects under {@code layout}. */
    ThreeObjectsAudited(UnaryOperator<SinkSettings> layout, String first, String middle, String last) {
        this.layout = layout;
        this.first = first;
        this.middle = middle;
        this.last = last;
    }

    /** The store the sink writes to: {@link #objects}, unless a test watches its calls. */
    ObjectStore store() {
        return objects;
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (sink != null) sink.stop();
    }

    /** Runs the sink until the three objects are committed. */
    void threeObjectsCommitted() {
        SinkSettings base = layout.apply(TestSettings.countRotation(stream, 100));
        DeliverySettings d = base.delivery();
        SinkSettings settings = new SinkSettings(base.key(), base.name(), true, 0, false, base.streams(),
                base.output(), base.rotation(), base.retry(), new DeliverySettings(d.maxBufferedBytes(),
                d.errorsTolerance(), d.dlqPrefix(), d.shutdownTimeout(), d.uploadConcurrency(), 600), List.of());
        source.append(0, 300, i -> "r" + i);
        sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store(), InstantSource.system(),
                d2 -> Thread.sleep(Math.min(d2.toMillis(), 20)), SinkMetrics.NONE);
        sink.auditInBackground = false;
        sink.start();
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 299);
        assertThat(objects.objects()).containsKeys(first, middle, last);
    }

    @Test
    void a_deleted_object_is_a_gap_naming_the_objects_around_it() throws Exception {
        threeObjectsCommitted();
        audit();

        objects.delete(middle);
        AuditStatus found = audit();

        assertThat(found.counts().gaps()).isEqualTo(1);
        assertThat(found.problems()).anySatisfy(p -> assertThat(p).contains("offsets 100-199", first, last));
        failedNaming("offsets 100-199", first, last);
    }

    @Test
    void a_group_offset_ahead_of_the_store_is_found() throws Exception {
        threeObjectsCommitted();
        audit();

        // Someone moves the group past what the store holds; the partition comes back to this member from there.
        source.own(0, false);
        await().atMost(WAIT).until(() -> sink.status().partitions().stream().noneMatch(p -> p.owned()));
        source.store(0, 499);
        source.own(0, true);
        await().atMost(WAIT).until(() -> sink.status().partitions().stream()
                .anyMatch(p -> p.owned() && p.committed() == 499));
        AuditStatus found = audit();

        assertThat(found.counts().gaps()).isEqualTo(1);
        failedNaming("the group's offset 499 is ahead of the store", "offsets 300-499", "after " + last);
    }

    /** Whether {@code found} is a round that found nothing and covered partition 0's 300 records in three objects. */
    static void cleanOverAllThree(AuditStatus found) {
        assertThat(found.problems()).isEmpty();
        assertThat(found.notes()).isEmpty();
        assertThat(found.covered()).singleElement().satisfies(c -> {
            assertThat(c.partition()).isZero();
            assertThat(c.from()).isZero();
            assertThat(c.to()).isEqualTo(299);
            assertThat(c.objects()).isEqualTo(3);
        });
    }

    /** Puts in place of {@code key} an object of {@code to - from + 1} records whose metadata names that range. */
    void rewritten(String key, long from, long to) {
        int records = Math.toIntExact(to - from + 1);
        Map<String, String> stamps = new HashMap<>(objects.metadataOf(key));
        stamps.put(ObjectStamps.OFFSETS, from + "-" + to);
        stamps.put(ObjectStamps.RECORDS, Integer.toString(records));
        stamps.put(ObjectStamps.LAST, to + "/0/0");
        objects.seed(key, ("r" + from + "\n").repeat(records).getBytes(StandardCharsets.UTF_8), stamps);
    }

    AuditStatus audit() throws Exception {
        return sink.auditNow().orElseThrow();
    }

    StatusSnapshot failedNaming(String... words) {
        StatusSnapshot status = sink.status();
        assertThat(status.health()).as("health, reasons %s", status.reasons()).isEqualTo(Health.FAILED);
        assertThat(status.reasons()).anySatisfy(r -> assertThat(r).startsWith("self-audit: ").contains(words));
        return status;
    }
}
