package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 35 item 6 with the fat jar: a topic deleted while the sink runs halts that topic alone (health failed naming
 * it, a metric), the other topic goes on, the deleted one is consumed again once it is created again, and only when
 * every topic is gone does the sink exit, with 1.
 */
class DeletedTopicIT extends E2eTest {
    private static final String KEPT = "kept";
    private static final String DOOMED = "doomed";
    private int port;

    @Test
    @Timeout(300)
    void a_deleted_topic_halts_alone_comes_back_when_created_again_and_a_sink_with_nothing_left_exits_1()
            throws Exception {
        fx.topic(KEPT, 1);
        fx.topic(DOOMED, 1);
        // The first record's time in the key: the topic's second life does not meet its first life's objects.
        Path config = fx.config(List.of(KEPT, DOOMED), "json", """
                path_template = "{stream}/{topic}/{timestamp}"
                file_rotation = "messages"
                max_messages_per_file = 10
                """);
        port = E2eFixture.freePort();
        try (SinkProcess sink = SinkProcess.run(fx.withAdmin(config, port, "admin"), fx.log("deleted-topic"),
                Map.of())) {
            send(KEPT, 0);
            send(DOOMED, 0);
            await().atMost(Duration.ofSeconds(60)).until(() -> objects(KEPT) == 1 && objects(DOOMED) == 1
                    || !sink.alive());
            assertThat(sink.alive()).as(sink.logText()).isTrue();

            deleteTopic(DOOMED);
            await().atMost(Duration.ofSeconds(60)).until(() -> body("/health").contains("does not exist")
                    || !sink.alive());
            HttpResponse<String> health = E2eFixture.admin(port, "/health");
            assertThat(health).as(sink.logText()).isNotNull();
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).contains("\"status\":\"failed\"").contains(fx.stream + "/" + DOOMED)
                    .doesNotContain(fx.stream + "/" + KEPT);
            assertThat(body("/metrics")).containsPattern("iggysink_topic_missing\\{[^}]*topic=\"" + DOOMED
                    + "\"[^}]*} 1\\.0");

            send(KEPT, 10);
            await().atMost(Duration.ofSeconds(60)).until(() -> objects(KEPT) == 2 || !sink.alive());
            assertThat(sink.alive()).as("the other topic goes on:\n%s", sink.logText()).isTrue();

            fx.topic(DOOMED, 1);
            send(DOOMED, 100);
            await().atMost(Duration.ofSeconds(60)).until(() -> objects(DOOMED) == 2 || !sink.alive());
            await().atMost(Duration.ofSeconds(30)).until(() -> body("/health").contains("\"status\":\"ok\"")
                    || !sink.alive());
            assertThat(sink.alive()).as(sink.logText()).isTrue();
            assertThat(body("/metrics")).containsPattern("iggysink_topic_missing\\{[^}]*topic=\"" + DOOMED
                    + "\"[^}]*} 0\\.0");

            deleteTopic(KEPT);
            deleteTopic(DOOMED);
            assertThat(sink.waitFor(Duration.ofSeconds(90))).as("exit code with nothing left to consume:\n%s",
                    sink.logText()).isEqualTo(1);
            assertThat(sink.logText()).contains("nothing left to consume").contains(DOOMED).contains(KEPT);

            // The body of the second life's first file: records 100.. of the producer, from offset 0.
            String second = fx.objects().stream().map(o -> o.key())
                    .filter(k -> k.contains("/" + DOOMED + "/") && fx.read(k).contains("\"n\":100")).findFirst()
                    .orElseThrow(() -> new AssertionError("no object of the second life: " + fx.objects()));
            assertThat(second).contains("00000-00000000000000000000-00000000000000000009");
        }
    }

    /**
     * A restart (a deploy, the service manager) while one topic is still deleted: the other topics run, the missing
     * one is halted and looked for, and it is consumed once created; only a sink with no topic at all fails to start.
     */
    @Test
    @Timeout(240)
    void a_sink_started_while_one_of_its_topics_is_missing_runs_the_others_and_takes_it_up_once_created()
            throws Exception {
        fx.topic(KEPT, 1);
        Path config = fx.config(List.of(KEPT, DOOMED), "json", """
                file_rotation = "messages"
                max_messages_per_file = 10
                """);
        port = E2eFixture.freePort();
        try (SinkProcess sink = SinkProcess.run(fx.withAdmin(config, port, "admin"), fx.log("missing-at-start"),
                Map.of())) {
            send(KEPT, 0);
            await().atMost(Duration.ofSeconds(60)).until(() -> objects(KEPT) == 1 || !sink.alive());
            assertThat(sink.alive()).as("a missing topic at start does not stop the others:\n%s", sink.logText())
                    .isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> body("/health").contains("does not exist"));
            assertThat(body("/health")).contains("\"status\":\"failed\"").contains(fx.stream + "/" + DOOMED);

            fx.topic(DOOMED, 1);
            send(DOOMED, 0);
            await().atMost(Duration.ofSeconds(60)).until(() -> objects(DOOMED) == 1 || !sink.alive());
            assertThat(sink.alive()).as(sink.logText()).isTrue();
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }

        Path none = fx.config(List.of("never_a", "never_b"), "json", "");
        try (SinkProcess sink = SinkProcess.run(none, fx.log("nothing-at-start"), Map.of())) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText()).contains("never_a").contains("never_b");
        }
    }

    private void send(String topic, int from) {
        fx.producer.sendJson(fx.stream, topic, 0, 10, i -> "{\"n\":" + (from + i) + "}");
    }

    private void deleteTopic(String topic) {
        fx.producer.client().topics().deleteTopic(StreamId.of(fx.stream), TopicId.of(topic));
    }

    private long objects(String topic) {
        return fx.objects().stream().filter(o -> o.key().contains("/" + topic + "/")).count();
    }

    private String body(String path) {
        HttpResponse<String> r = E2eFixture.admin(port, path);
        return r == null ? "" : r.body();
    }
}
