package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.zip.GZIPInputStream;
import org.apache.avro.file.DataFileStream;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/** Compressed and columnar output as users get it from the bucket, written by the real jar on MinIO. */
class FormatsIT extends E2eTest {
    private static final String SCHEMA = "{\"type\":\"record\",\"name\":\"Request\",\"fields\":["
            + "{\"name\":\"method\",\"type\":\"string\"},{\"name\":\"status\",\"type\":\"int\"}]}";

    private byte[] readBytes(String key) {
        return fx.minio.client().getObjectAsBytes(b -> b.bucket(fx.bucket).key(key)).asByteArray();
    }

    private List<S3Object> runUntilObjects(String topic, Path config, int count) throws Exception {
        try (SinkProcess sink = SinkProcess.run(config, fx.log(topic), Map.of())) {
            await().atMost(Duration.ofSeconds(90)).until(() -> fx.objects().size() >= count);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        return fx.objects();
    }

    @Test
    @Timeout(180)
    void gzip_json_lines_objects_get_the_gz_suffix_and_hold_the_lines() throws Exception {
        fx.topic("gz", 1);
        fx.producer.sendJson(fx.stream, "gz", 0, 30, i -> "{\"method\":\"GET\",\"status\":" + (200 + i) + "}");
        Path config = fx.config(List.of("gz"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 10
                compression = "gzip"
                """);
        List<S3Object> objects = runUntilObjects("gz", config, 3);
        assertThat(objects).hasSize(3).allSatisfy(o -> assertThat(o.key()).endsWith(".jsonl.gz"));
        List<String> lines = new ArrayList<>();
        for (S3Object o : objects) {
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(readBytes(o.key())))) {
                lines.addAll(new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList());
            }
        }
        assertThat(lines).hasSize(30).allSatisfy(l -> assertThat(l).startsWith("{\"offset\":"));
        assertThat(lines).anySatisfy(l -> assertThat(l).endsWith("\"payload\":{\"method\":\"GET\",\"status\":229}}"));
        assertThat(fx.audit(config).output()).contains("AUDIT OK", "committed=29 ").doesNotContain("not checked");
    }

    @Test
    @Timeout(180)
    void avro_objects_read_back_with_the_standard_reader_value_by_value() throws Exception {
        fx.topic("avro", 1);
        fx.producer.sendJson(fx.stream, "avro", 0, 25, i -> "{\"method\":\"" + (i % 2 == 0 ? "GET" : "POST")
                + "\",\"status\":" + (200 + i) + "}");
        Path config = fx.config(List.of("avro"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 25
                output_format = "avro"
                avro_codec = "snappy"
                avro_schema_json = '%s'
                """.formatted(SCHEMA));
        List<S3Object> objects = runUntilObjects("avro", config, 1);
        assertThat(objects).hasSize(1);
        assertThat(objects.get(0).key()).endsWith("00000-00000000000000000000-00000000000000000024.avro");
        List<GenericRecord> rows = new ArrayList<>();
        try (DataFileStream<GenericRecord> in = new DataFileStream<>(
                new ByteArrayInputStream(readBytes(objects.get(0).key())), new GenericDatumReader<>())) {
            in.forEach(rows::add);
        }
        assertThat(rows).hasSize(25);
        for (int i = 0; i < 25; i++) {
            assertThat(rows.get(i).get("method").toString()).isEqualTo(i % 2 == 0 ? "GET" : "POST");
            assertThat(rows.get(i).get("status")).isEqualTo(200 + i);
            assertThat(rows.get(i).get("iggy_offset")).isEqualTo((long) i);
            assertThat(rows.get(i).get("iggy_stream").toString()).isEqualTo(fx.stream);
        }
    }

    @Test
    @Timeout(180)
    void parquet_objects_are_whole_parquet_files_with_the_metadata_columns() throws Exception {
        fx.topic("pq", 1);
        fx.producer.sendJson(fx.stream, "pq", 0, 40, i -> "{\"method\":\"GET\",\"status\":" + (200 + i) + "}");
        Path config = fx.config(List.of("pq"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 20
                output_format = "parquet"
                parquet_codec = "zstd"
                avro_schema_json = '%s'
                """.formatted(SCHEMA));
        List<S3Object> objects = runUntilObjects("pq", config, 2);
        assertThat(objects).hasSize(2).allSatisfy(o -> assertThat(o.key()).endsWith(".parquet"));
        byte[] magic = "PAR1".getBytes(StandardCharsets.US_ASCII);
        for (S3Object o : objects) {
            byte[] file = readBytes(o.key());
            assertThat(Arrays.copyOfRange(file, 0, 4)).isEqualTo(magic);
            assertThat(Arrays.copyOfRange(file, file.length - 4, file.length)).isEqualTo(magic);
            // The footer names every column; reading rows back needs Hadoop, which the format tests do.
            String footer = new String(file, StandardCharsets.ISO_8859_1);
            assertThat(footer).contains("method", "status", "iggy_offset", "iggy_timestamp", "iggy_partition_id");
        }
        // The audit reads the offsets from each parquet footer, not only from the keys.
        assertThat(fx.audit(config).output()).contains("AUDIT OK", "committed=39 ").doesNotContain("not checked");
    }
}
