package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.status.AuditStatus;
import dev.iggysink.application.status.Health;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.MinioServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The self-audit with the default budget on the real MinIO (issue 48): it reads the committed objects back, finds the
 * run clean, then finds an object deleted behind the sink's back and fails health naming its key. About 20 s: two
 * self-audit rounds, 10 s apart.
 */
class SelfAuditIT {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TOPIC = "orders";

    private final MinioServer minio = MinioServer.shared();
    private IggyEndpoint iggy;
    private IggyProducer producer;
    private String stream;
    private String bucket;
    private SinkRunner runner;

    @BeforeEach
    void setUp() {
        Logging.bridgeJul();
        String id = UUID.randomUUID().toString().substring(0, 8);
        stream = "selfaudit_" + id;
        bucket = "selfaudit-" + id;
        minio.createBucket(bucket);
        iggy = IggyEndpoint.fromEnvOrEmbedded();
        producer = IggyProducer.connect(iggy.host(), iggy.port());
        producer.createStreamIfMissing(stream);
        producer.createTopicIfMissing(stream, TOPIC, 1);
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            if (runner != null) {
                runner.requestStop();
                runner.awaitAll();
                runner.close();
            }
        } finally {
            try {
                producer.deleteStream(stream);
            } catch (RuntimeException ignored) {
                // best effort
            }
            producer.close();
            iggy.close();
        }
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
        Path file = Files.createTempDirectory("sink-selfaudit-").resolve("s3_sink.toml");
        Files.writeString(file, config(), StandardCharsets.UTF_8);
        ConfigResult config = ConnectorConfigLoader.load(file, Map.of());
        assertThat(config.errors()).isEmpty();
        runner = new SinkRunner();
        return runner.start(config.sinks().get(0), SinkMetrics.NONE);
    }

    private static long committed(SinkRunner.Running sink) {
        for (PartitionStatus p : sink.service().status().partitions()) {
            if (p.partition() == 0 && p.owned()) return p.committed();
        }
        return Long.MIN_VALUE;
    }

    private String config() {
        return S3SinkFiles.text(iggy.address(), stream, TOPIC, "g1", minio, bucket, """
                path_template = "{stream}/{topic}"
                max_messages_per_file = 100
                """);
    }
}
