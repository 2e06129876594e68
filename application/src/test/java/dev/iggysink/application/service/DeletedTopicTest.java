package dev.iggysink.application.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.status.Health;
import java.time.Duration;
import java.time.InstantSource;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 35 item 6: a topic deleted while the sink runs halts that topic alone (health failed naming it, the other
 * topics go on), is consumed again once it is created again, and only a sink with nothing left to consume stops.
 */
class DeletedTopicTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final StreamSettings stream = TestSettings.stream("s", "gone", "stays");
    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource gone = new ScriptedMessageSource("s", "gone", 1);
    private final ScriptedMessageSource stays = new ScriptedMessageSource("s", "stays", 1);
    private final Map<String, Boolean> missing = new ConcurrentHashMap<>();
    private SinkService sink;

    private void start() {
        SinkMetrics metrics = new SinkMetrics() {
            @Override
            public void topicMissing(String streamName, String topic, boolean isMissing) {
                missing.put(streamName + "/" + topic, isMissing);
            }
        };
        sink = new SinkService(TestSettings.countRotation(stream, 10),
                (s, t, g) -> t.equals("gone") ? gone : stays, s -> new LinesCodec(), store, InstantSource.system(),
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), metrics);
        sink.start();
    }

    @AfterEach
    void stop() throws InterruptedException {
        if (sink != null) sink.stop();
    }

    private static long stored(ScriptedMessageSource source) {
        return source.stored(0).orElse(-1);
    }

    private boolean hasObjectOf(String topic, String hour) {
        return store.objects().keySet().stream().anyMatch(k -> k.contains("/" + topic + "/") && k.contains(hour));
    }

    @Test
    void a_deleted_topic_halts_alone_and_is_consumed_again_once_it_is_created_again() {
        gone.append(0, 10, i -> "{\"n\":" + i + "}");
        stays.append(0, 10, i -> "{\"n\":" + i + "}");
        start();
        await().atMost(WAIT).until(() -> stored(gone) == 9 && stored(stays) == 9);

        gone.deleteTopic();
        stays.append(0, 10, i -> "{\"n\":" + (10 + i) + "}");

        await().atMost(WAIT).until(() -> stored(stays) == 19);
        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED);
        assertThat(sink.status().reasons())
                .anySatisfy(r -> assertThat(r).contains("s/gone").contains("does not exist"));
        assertThat(sink.status().reasons()).noneSatisfy(r -> assertThat(r).contains("s/stays"));
        assertThat(sink.stopping()).as("the other topic goes on").isFalse();
        assertThat(sink.fatalError()).isEmpty();
        assertThat(missing).containsEntry("s/gone", true).containsEntry("s/stays", false);

        // Created again, with its records in another hour than the first life's (whose objects stay where they are).
        gone.createTopicAgain();
        gone.recordTimeMicros(1_773_680_000_000_000L); // 2026-03-16T16:53Z
        gone.append(0, 10, i -> "{\"again\":" + i + "}");

        await().atMost(WAIT).until(() -> stored(gone) == 9 && hasObjectOf("gone", "/16/"));
        await().atMost(WAIT).until(() -> sink.status().health() == Health.OK);
        assertThat(missing).containsEntry("s/gone", false);
        assertThat(hasObjectOf("gone", "/14/")).as("the first life's object").isTrue();
    }

    @Test
    void a_sink_whose_every_topic_was_deleted_stops_by_itself_naming_them() throws InterruptedException {
        gone.append(0, 10, i -> "{\"n\":" + i + "}");
        stays.append(0, 10, i -> "{\"n\":" + i + "}");
        start();
        await().atMost(WAIT).until(() -> stored(gone) == 9 && stored(stays) == 9);

        gone.deleteTopic();
        await().atMost(WAIT).until(() -> sink.status().health() == Health.FAILED);
        assertThat(sink.stopping()).as("one topic is left").isFalse();
        stays.deleteTopic();

        ShutdownReport report = sink.awaitTermination();
        sink = null;
        assertThat(report.clean()).isFalse();
        assertThat(report.fatalError()).hasValueSatisfying(f -> assertThat(f).contains("nothing left to consume")
                .contains("s/gone").contains("s/stays"));
    }
}
