package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import dev.iggysink.domain.naming.ObjectKey;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The self-audit with the default budget on the real MinIO (issue 48): it reads the committed objects back, finds the
 * run clean, then finds an object deleted behind the sink's back and fails health naming its key. About 20 s: two
 * self-audit rounds, 10 s apart.
 */
class SelfAuditIT extends OneTopicSinkScene {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TOPIC = "orders";

    SelfAuditIT() {
        super("selfaudit", TOPIC);
    }

    @Test
    @Timeout(120)
    void a_clean_run_is_verified_and_an_object_deleted_later_fails_health_naming_it() throws Exception {
        producer.sendJson(stream, TOPIC, 0, 300, i -> "{\"i\":" + i + "}");
        SinkRunner.Running sink = start();
        await().atMost(WAIT).until(() -> committed(sink) == 299);
        await().atMost(WAIT).until(() -> sink.service().audit().orElseThrow().objectsVerified() == 3);
        AuditStatus clean = sink.service().audit().orElseThrow();
        assertThat(clean.problems()).isEmpty();
        assertThat(sink.service().status().health()).isEqualTo(Health.OK);

        String middle = ObjectKey.of("", stream + "/" + TOPIC, 0, 100, 199, "jsonl");
        minio.client().deleteObject(b -> b.bucket(bucket).key(middle));

        await().atMost(WAIT).until(() -> sink.service().status().health() == Health.FAILED);
        assertThat(sink.service().status().reasons()).anySatisfy(r -> assertThat(r).startsWith("self-audit: ")
                .contains("offsets 100-199").contains(ObjectKey.of("", stream + "/" + TOPIC, 0, 0, 99, "jsonl")));
        assertThat(sink.service().audit().orElseThrow().counts().gaps()).isEqualTo(1);
    }

    private SinkRunner.Running start() throws Exception {
        return start(config());
    }

    private String config() {
        return S3SinkFiles.text(iggy.address(), stream, TOPIC, "g1", minio, bucket, """
                path_template = "{stream}/{topic}"
                max_messages_per_file = 100
                """);
    }
}
