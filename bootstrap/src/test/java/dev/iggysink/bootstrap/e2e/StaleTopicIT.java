package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.domain.naming.ObjectKey;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * A topic deleted and created again under the same name while the bucket keeps its objects: the new topic's offsets
 * start at 0 again, and the key lookup finds the earlier life's object where the new records' first file would go.
 * The sink must not trust it (that would skip the new records): the partition halts with a reason that names the
 * object, the object is left as it is, and nothing is committed. Once the operator has deleted the earlier life's
 * objects, as the reason says, a restart writes every new record exactly once.
 */
class StaleTopicIT extends E2eTest {
    private static final String TOPIC = "reborn";

    @Test
    @Timeout(240)
    void an_object_from_an_earlier_life_of_the_topic_halts_the_partition_and_after_its_removal_all_is_written()
            throws Exception {
        fx.topic(TOPIC, 1);
        // No time in the path: the new records' first file renders the earlier one's path whatever the clock says.
        Path config = fx.config(List.of(TOPIC), "json", """
                path_template = "{stream}/{topic}"
                file_rotation = "messages"
                max_messages_per_file = 50
                """);
        send(1, 100);
        try (SinkProcess sink = SinkProcess.run(config, fx.log("first-life"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> fx.committedOffsets(config).getOrDefault(0, -1L) == 99 || !sink.alive());
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        Map<String, String> earlier = topicObjects();
        assertThat(earlier.keySet()).as("the earlier life's objects").hasSize(2);
        // The object the new records' first file would be: the one the lookup finds and must not trust.
        String stale = earlier.keySet().stream()
                .filter(k -> ObjectKey.parse(k).map(r -> r.firstOffset() == 0).orElse(false))
                .findFirst().orElseThrow(() -> new AssertionError("no object from offset 0: " + earlier));

        fx.producer.client().topics().deleteTopic(StreamId.of(fx.stream), TopicId.of(TOPIC));
        fx.topic(TOPIC, 1);
        send(2, 100);

        int port = E2eFixture.freePort();
        try (SinkProcess sink = SinkProcess.run(fx.withAdmin(config, port, "admin"), fx.log("second-life"),
                Map.of())) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).until(() -> {
                HttpResponse<String> health = E2eFixture.admin(port, "/health");
                return health != null && health.body().contains("earlier life") || !sink.alive();
            });
            HttpResponse<String> health = E2eFixture.admin(port, "/health");
            assertThat(health).as("the sink runs:\n%s", sink.logText()).isNotNull();
            assertThat(health.statusCode()).isEqualTo(503);
            assertThat(health.body()).contains("\"status\":\"failed\"").contains(stale).contains("earlier life");
            assertThat(sink.logText()).contains(stale).contains("earlier life");
            assertThat(fx.committedOffsets(config).getOrDefault(0, -1L)).as("nothing committed").isEqualTo(-1L);
            assertThat(topicObjects()).as("the earlier life's objects, untouched").isEqualTo(earlier);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as("exit code of a halted sink:\n%s", sink.logText())
                    .isEqualTo(1);
        }
        assertThat(fx.committedOffsets(config).getOrDefault(0, -1L)).as("nothing committed").isEqualTo(-1L);
        assertThat(topicObjects()).as("the earlier life's objects, untouched").isEqualTo(earlier);

        // What the reason asks of the operator: delete the earlier life's objects, then restart.
        for (String key : earlier.keySet()) fx.minio.client().deleteObject(b -> b.bucket(fx.bucket).key(key));
        try (SinkProcess sink = SinkProcess.run(config, fx.log("after-removal"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> fx.committedOffsets(config).getOrDefault(0, -1L) == 99 || !sink.alive());
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        assertThat(fx.committed(config, 0)).isEqualTo(99);
        Map<Long, Integer> seen = fx.copies(TOPIC).get(0);
        assertThat(seen.keySet()).containsExactlyElementsOf(LongStream.range(0, 100).boxed().toList());
        assertThat(seen).allSatisfy((offset, n) -> assertThat(n).as("copies of offset %d", offset).isOne());
        for (String key : topicObjects().keySet()) {
            assertThat(fx.read(key)).as(key).contains("\"life\":2").doesNotContain("\"life\":1");
        }
        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        assertThat(audit.output()).as(audit.output())
                .contains("AUDIT OK: every committed offset is in exactly one object");
    }

    private void send(int life, int count) {
        fx.producer.sendJson(fx.stream, TOPIC, 0, count, i -> "{\"life\":" + life + ",\"i\":" + i + "}");
    }

    /** The topic's objects: key to ETag, last-modified time and a hash of the content. */
    private Map<String, String> topicObjects() {
        Map<String, String> out = new TreeMap<>();
        for (S3Object o : fx.objects()) {
            if (o.key().startsWith(fx.stream + "/" + TOPIC + "/")) {
                out.put(o.key(), o.eTag() + " " + o.lastModified() + " " + fx.read(o.key()).hashCode());
            }
        }
        return out;
    }
}
