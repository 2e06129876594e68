package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.status.PartitionStatus;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import dev.iggysink.testkit.s3.MinioServer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * An object sink run in this JVM ({@link SinkRunner}) on a topic of one partition: a fresh stream and bucket on the
 * shared MinIO for each test, the sink stopped and the stream deleted after it.
 */
abstract class OneTopicSinkScene {
    final MinioServer minio = MinioServer.shared();
    final String topic;
    private final String name;
    IggyEndpoint iggy;
    IggyProducer producer;
    String stream;
    String bucket;
    /** The connector file of the last sink started. */
    Path configFile;
    private SinkRunner runner;

    /** {@code name} starts the stream's and the bucket's names. */
    OneTopicSinkScene(String name, String topic) {
        this.name = name;
        this.topic = topic;
    }

    @BeforeEach
    void setUp() {
        Logging.bridgeJul();
        String id = UUID.randomUUID().toString().substring(0, 8);
        stream = name + "_" + id;
        bucket = name + "-" + id;
        minio.createBucket(bucket);
        iggy = IggyEndpoint.fromEnvOrEmbedded();
        producer = IggyProducer.connect(iggy.host(), iggy.port());
        producer.createStreamIfMissing(stream);
        producer.createTopicIfMissing(stream, topic, 1);
    }

    @AfterEach
    void tearDown() throws Exception {
        try {
            stopSink();
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

    /** Starts a sink of the connector file {@code toml}. */
    SinkRunner.Running start(String toml) throws Exception {
        Path file = Files.createTempDirectory("sink-" + name + "-").resolve("s3_sink.toml");
        configFile = file;
        Files.writeString(file, toml, StandardCharsets.UTF_8);
        ConfigResult config = ConnectorConfigLoader.load(file, Map.of());
        assertThat(config.errors()).isEmpty();
        runner = new SinkRunner();
        return runner.start(config.sinks().get(0), SinkMetrics.NONE);
    }

    void stopSink() throws InterruptedException {
        if (runner == null) return;
        runner.requestStop();
        runner.awaitAll();
        runner.close();
        runner = null;
    }

    /** The offset committed of partition 0 while {@code sink} owns it, else {@link Long#MIN_VALUE}. */
    static long committed(SinkRunner.Running sink) {
        for (PartitionStatus p : sink.service().status().partitions()) {
            if (p.partition() == 0 && p.owned()) return p.committed();
        }
        return Long.MIN_VALUE;
    }
}
