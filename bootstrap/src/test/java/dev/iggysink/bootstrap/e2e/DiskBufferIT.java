package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Open files in the buffer directory through a kill -9: what the killed process left is deleted by the next one,
 * which reads those records again; a clean stop leaves nothing behind; and a buffer directory that cannot be used
 * stops the start with one line and exit 3.
 */
class DiskBufferIT extends E2eTest {
    private static final String TOPIC = "buffered";
    private static final int PARTITIONS = 2;
    private static final String PAD = "p".repeat(1000);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static List<Path> processDirs(Path buffers) throws Exception {
        if (!Files.isDirectory(buffers)) return List.of();
        try (Stream<Path> dirs = Files.list(buffers)) {
            return dirs.filter(Files::isDirectory).toList();
        }
    }

    /** Sizes of the buffer files under {@code buffers}; null while the sink changes them under the walk. */
    private static long[] bufferFileSizes(Path buffers) throws Exception {
        if (!Files.isDirectory(buffers)) return new long[0];
        try (Stream<Path> all = Files.walk(buffers)) {
            return all.filter(p -> p.toString().endsWith(".buf")).mapToLong(p -> p.toFile().length()).toArray();
        } catch (java.io.UncheckedIOException | java.nio.file.NoSuchFileException e) {
            return null;
        }
    }

    private static long bufferFiles(Path buffers) throws Exception {
        long[] sizes = bufferFileSizes(buffers);
        return sizes == null ? -1 : sizes.length;
    }

    private static long bufferBytes(Path buffers) throws Exception {
        long[] sizes = bufferFileSizes(buffers);
        return sizes == null ? -1 : java.util.Arrays.stream(sizes).sum();
    }

    @Test
    @Timeout(240)
    void files_left_on_disk_by_a_kill_9_are_deleted_at_the_next_start_and_their_records_stored_exactly_once()
            throws Exception {
        fx.topic(TOPIC, PARTITIONS);
        Path buffers = fx.dir.resolve("buffers");
        Path config = fx.config(List.of(TOPIC), "json", """
                buffer_directory = "%s"
                max_file_size = "64MiB"
                """.formatted(buffers.toString().replace("\\", "\\\\")));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String toml = Files.readString(config, StandardCharsets.UTF_8);
        Files.writeString(config, toml.replace("address = \"off\"", "address = \"127.0.0.1:" + port + "\""),
                StandardCharsets.UTF_8);
        // About 2 MB per partition: more than the heap keeps of an open file, so both files are on disk.
        for (int p = 0; p < PARTITIONS; p++) send(p, 2000);

        try (SinkProcess sink = SinkProcess.run(config, fx.log("killed"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> bufferFiles(buffers) == PARTITIONS);
            sink.kill9();
        }
        List<Path> left = processDirs(buffers);
        assertThat(left).hasSize(1);
        assertThat(bufferFiles(buffers)).isEqualTo(PARTITIONS);
        assertThat(fx.objects()).as("nothing was sealed before the kill").isEmpty();

        for (int p = 0; p < PARTITIONS; p++) send(p, 2000);
        try (SinkProcess sink = SinkProcess.run(config, fx.log("after"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("deleted 1 directory(ies)"));
            assertThat(left.get(0)).doesNotExist();
            // Everything read (nothing was committed, so this process reads all 4,000 of each partition; a size of
            // the files alone cannot tell a partition that is behind from one that is done), in open files on disk
            // (all but the last 256 KiB of each, which the heap holds; 4,000 records of over 1,000 bytes): the stop
            // seals and uploads them.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> consumed(port) == PARTITIONS * 4000L);
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100))
                    .until(() -> bufferFiles(buffers) == PARTITIONS && bufferBytes(buffers) > PARTITIONS * 3_500_000L);
            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();
        }
        assertThat(processDirs(buffers)).as("a clean stop deletes its own directory").isEmpty();

        E2eFixture.AuditResult audit = fx.audit(config);
        assertThat(audit.exitCode()).as(audit.output()).isZero();
        Map<Integer, Map<Long, Integer>> copies = fx.copies(TOPIC);
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(fx.committed(config, p)).isEqualTo(3999);
            Map<Long, Integer> seen = copies.get(p);
            assertThat(seen.keySet()).as("offsets of partition %d", p)
                    .containsExactlyElementsOf(LongStream.range(0, 4000).boxed().toList());
            assertThat(seen.values()).as("copies per offset of partition %d", p).allMatch(n -> n == 1);
        }
    }

    @Test
    @Timeout(120)
    void a_buffer_directory_that_cannot_be_made_is_one_line_and_exit_3() throws Exception {
        fx.topic(TOPIC, 1);
        Path blocker = fx.dir.resolve("a-file");
        Files.writeString(blocker, "not a directory");
        Path config = fx.config(List.of(TOPIC), "json", "buffer_directory = \"%s\"\n"
                .formatted(blocker.resolve("buffers").toString().replace("\\", "\\\\")));
        try (SinkProcess sink = SinkProcess.run(config, fx.log("unusable"), Map.of())) {
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isEqualTo(3);
            assertThat(sink.logText()).contains("cannot create buffer_directory").contains("a-file")
                    .doesNotContain("\tat ");
        }
    }

    /** The process's {@code records_consumed} from {@code /status}; -1 while the admin server does not answer. */
    private static long consumed(int port) {
        try {
            String body = HTTP.send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/status")).GET().build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            Matcher m = Pattern.compile("\"records_consumed\"\\s*:\\s*(\\d+)").matcher(body);
            return m.find() ? Long.parseLong(m.group(1)) : -1;
        } catch (java.io.IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private void send(int partition, int count) {
        fx.producer.sendJson(fx.stream, TOPIC, partition, count,
                i -> "{\"p\":" + partition + ",\"i\":" + i + ",\"pad\":\"" + PAD + "\"}");
    }
}
