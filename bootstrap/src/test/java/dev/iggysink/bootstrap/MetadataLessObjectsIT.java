package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.iggysink.application.status.Health;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Objects without {@code x-amz-meta-iggy-*} metadata, as the Rust sink (or this sink before it stamped objects)
 * leaves them, found by the key lookup on the real MinIO with the real codecs: one from an earlier life of the topic
 * halts the partition, one that holds the partition's records is committed instead of written again. json_lines
 * with include_metadata (the Rust sink's default), so the records name their offset and time.
 */
class MetadataLessObjectsIT extends OneTopicSinkScene {
    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String TOPIC = "clicks";

    private String format = "json_lines";

    MetadataLessObjectsIT() {
        super("nometa", TOPIC);
    }

    @Test
    @Timeout(240)
    void an_object_without_metadata_from_an_earlier_life_halts_the_partition_and_is_left_as_it_is() throws Exception {
        producer.sendJson(stream, TOPIC, 0, 100, i -> "{\"life\":2,\"i\":" + i + "}");
        // What the Rust sink wrote of offsets 0-99 before the topic was deleted and created again.
        String key = ObjectKey.of("", stream + "/" + TOPIC, 0, 0, 99, "jsonl");
        StringBuilder earlier = new StringBuilder();
        for (int i = 0; i < 100; i++) {
            earlier.append("{\"offset\":").append(i).append(",\"timestamp\":\"2026-01-05T09:30:00Z\",\"stream\":\"")
                    .append(stream).append("\",\"topic\":\"").append(TOPIC)
                    .append("\",\"partition_id\":0,\"payload\":{\"life\":1,\"i\":").append(i).append("}}\n");
        }
        byte[] content = earlier.toString().getBytes(StandardCharsets.UTF_8);
        minio.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(content));

        SinkRunner.Running sink = startSink("g1");
        await().atMost(WAIT).until(() -> sink.service().status().health() == Health.FAILED
                || committed(sink) >= 0);

        assertThat(committed(sink)).as("nothing committed, nothing skipped").isEqualTo(-1);
        assertThat(sink.service().status().reasons()).anySatisfy(r -> assertThat(r).contains(key)
                .contains("earlier life").contains("Move or delete"));
        assertThat(objects()).extracting(S3Object::key).containsExactly(key);
        assertThat(read(key)).isEqualTo(content);
        assertThat(metadata(key)).isEmpty();
    }

    @Test
    @Timeout(240)
    void an_object_without_metadata_that_holds_the_partitions_records_is_committed_not_written_again()
            throws Exception {
        producer.sendJson(stream, TOPIC, 0, 100, i -> "{\"i\":" + i + "}");
        SinkRunner.Running first = startSink("g1");
        await().atMost(WAIT).until(() -> committed(first) == 99);
        stopSink();
        List<S3Object> written = objects();
        assertThat(written).hasSize(1);
        String key = written.get(0).key();
        assertThat(metadata(key)).as("this sink stamps its objects").containsKey("iggy-first");
        // The same bytes without metadata, as the Rust sink leaves them.
        byte[] content = read(key);
        minio.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromBytes(content));
        String etag = objects().get(0).eTag();

        // A new group reads from offset 0: the lookup finds the object and checks it by its content.
        SinkRunner.Running second = startSink("g2");
        await().atMost(WAIT).until(() -> committed(second) == 99
                || second.service().status().health() == Health.FAILED);

        assertThat(second.service().status().reasons()).isEmpty();
        assertThat(committed(second)).isEqualTo(99);
        stopSink();
        assertThat(objects()).extracting(S3Object::key).containsExactly(key);
        assertThat(objects().get(0).eTag()).as("not written again").isEqualTo(etag);
        assertThat(metadata(key)).isEmpty();
    }

    /**
     * Raw files name no records: such an object is trusted by its key (the one case left), and audit says which
     * objects a restart would trust that way.
     */
    @Test
    @Timeout(240)
    void a_raw_object_without_metadata_is_trusted_by_key_and_audit_names_it() throws Exception {
        format = "raw";
        producer.sendJson(stream, TOPIC, 0, 100, i -> "{\"i\":" + i + "}");
        String key = ObjectKey.of("", stream + "/" + TOPIC, 0, 0, 99, "bin");
        minio.client().putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("written by the Rust sink"));

        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        root.addAppender(logs);
        try {
            SinkRunner.Running sink = startSink("g1");
            await().atMost(WAIT).until(() -> committed(sink) == 99);
            stopSink();
        } finally {
            root.detachAppender(logs);
        }
        assertThat(logs.list).filteredOn(e -> e.getFormattedMessage().contains("carry no x-amz-meta-iggy-*"))
                .singleElement().satisfies(e -> {
                    assertThat(e.getLevel()).isEqualTo(Level.WARN);
                    assertThat(e.getFormattedMessage()).contains("the bucket's root").contains(key);
                });

        CliRun audit = CliRun.execute("audit", "--config", configFile.toString());
        assertThat(audit.out()).as(audit.out() + audit.err())
                .contains("trusted by key on restart: 1 object(s) carry no x-amz-meta-iggy-* metadata")
                .contains(key);
        assertThat(objects()).extracting(S3Object::key).containsExactly(key);
    }

    private SinkRunner.Running startSink(String group) throws Exception {
        return start(config(group));
    }

    private List<S3Object> objects() {
        return minio.client().listObjectsV2(b -> b.bucket(bucket)).contents();
    }

    private byte[] read(String key) {
        return minio.client().getObjectAsBytes(b -> b.bucket(bucket).key(key)).asByteArray();
    }

    private Map<String, String> metadata(String key) {
        return minio.client().headObject(b -> b.bucket(bucket).key(key)).metadata();
    }

    private String config(String group) {
        return S3SinkFiles.text(iggy.address(), stream, TOPIC, group, minio, bucket, """
                path_template = "{stream}/{topic}"
                output_format = "%s"
                max_messages_per_file = 100
                """.formatted(format));
    }
}
