package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.iggysink.domain.completeness.FileEntry;
import dev.iggysink.domain.completeness.Markers;
import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.testkit.iggy.EmbeddedIggyServer;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Issue 44, end to end with the fat jar and MinIO: a partition halted by a bad record (errors_tolerance = "none")
 * holds back the marker of every folder it has not passed, while the other partitions' records keep landing; the
 * folders it had passed before its halt are marked; {@code /status} names the oldest unmarked folder and the halted
 * partition as the reason, {@code /health} the halt. Record time is the broker's append time, so the in-JVM broker
 * is given a clock a few hours ahead: records fall into hour folders without waiting for hours, and the sink's wall
 * clock never makes an idle partition pass them (only records do).
 */
class HaltedPartitionMarkersIT {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final String TOPIC = "clicks";
    private static final int PARTITIONS = 3;
    private static final int HALTED = 1;
    private static final String MARKER = "_COMPLETE";
    private static final int PER_FILE = 10;

    private E2eFixture fx;
    private int port;

    @BeforeEach
    void openFixture() throws Exception {
        fx = E2eFixture.sharedEmbedded();
    }

    @AfterEach
    void closeFixture() {
        fx.close();
    }

    @Test
    @Timeout(180)
    void a_halted_partition_holds_back_the_markers_of_the_folders_it_has_not_passed() throws Exception {
        EmbeddedIggyServer broker = fx.iggy.server().orElseThrow();
        Instant h0 = Instant.now().truncatedTo(ChronoUnit.HOURS).plus(3, ChronoUnit.HOURS);
        Instant h1 = h0.plus(1, ChronoUnit.HOURS);
        Instant h2 = h1.plus(1, ChronoUnit.HOURS);
        AtomicReference<Instant> brokerTime = new AtomicReference<>(h0.plus(10, ChronoUnit.MINUTES));
        broker.stampMessagesWith(brokerTime::get);
        fx.topic(TOPIC, PARTITIONS);
        port = E2eFixture.freePort();
        Path config = fx.withAdmin(fx.config(List.of(TOPIC), "json", """
                path_template = "{stream}/{topic}/{date}/{hour}"
                completion_marker = "_COMPLETE"
                file_rotation = "messages"
                max_messages_per_file = %d
                """.formatted(PER_FILE)), port, "halted_markers");
        // One file a partition in hour 0, one in hour 1: every partition has passed hour 0.
        sendToEvery(List.of(0, 1, 2), 0);
        brokerTime.set(h1.plus(10, ChronoUnit.MINUTES));
        sendToEvery(List.of(0, 1, 2), PER_FILE);
        String folder0 = folder(h0);
        String folder1 = folder(h1);
        String folder2 = folder(h2);
        String halt = "bad record at stream " + fx.stream + ", topic " + TOPIC + ", partition " + HALTED
                + ", offset " + 2 * PER_FILE;
        try (SinkProcess sink = SinkProcess.run(config, fx.log("sink"), Map.of())) {
            // Mid-run: once partition 1's progress says its hour-1 file is committed, with nothing more to read,
            // it meets a record that cannot be written (offset 20) and halts. Partitions 0 and 2 go on into hour 2
            // and so pass hour 1.
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500))
                    .until(() -> progressCommitted(HALTED) == 2L * PER_FILE - 1);
            brokerTime.set(h1.plus(20, ChronoUnit.MINUTES));
            fx.producer.sendJson(fx.stream, TOPIC, HALTED, 1, i -> "{\"broken\": ");
            brokerTime.set(h2.plus(10, ChronoUnit.MINUTES));
            sendToEvery(List.of(0, 1, 2), 2 * PER_FILE);

            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300)).untilAsserted(() -> {
                HttpResponse<String> health = E2eFixture.admin(port, "/health");
                assertThat(health).as("/health answers").isNotNull();
                assertThat(health.statusCode()).as("/health: %s", health.body()).isEqualTo(503);
                JsonNode body = JSON.readTree(health.body());
                assertThat(body.get("status").asText()).isEqualTo("failed");
                assertThat(body.get("reasons").toString()).contains(halt);
            });
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
                assertThat(markers()).as("markers").contains(folder0);
                assertThat(unmarked()).as("/status: the oldest unmarked folder and why").singleElement()
                        .asString().contains("folder " + folder1 + " ", "partition " + HALTED + " ", halt);
            });
            // What /status says is the state of the store: the folders partition 1 had passed are marked, the
            // others wait for it while partitions 0 and 2 have passed them.
            assertThat(unmarked()).as("/status: the oldest unmarked folder and why").singleElement().asString()
                    .contains(TOPIC + ": folder " + folder1 + " (" + h1 + " to " + h2 + ") is not marked yet: partition "
                            + HALTED + " is complete only up to " + h1.plus(10, ChronoUnit.MINUTES).toString()
                            .substring(0, 16), " at offset " + (2 * PER_FILE - 1) + "; it is held: " + halt);
            assertThat(markers()).as("markers: the folders partition 1 has passed, and only those")
                    .containsExactly(folder0);
            assertThat(Markers.objectsOf(fx.read(folder0 + "/" + MARKER).getBytes(StandardCharsets.UTF_8), folder0))
                    .extracting(FileEntry::partition).containsExactlyInAnyOrder(0, 1, 2);
            assertThat(partitionsIn(folder1)).as("hour 1 holds every partition's file").containsExactly(0, 1, 2);
            assertThat(partitionsIn(folder2)).as("the others' records keep landing in hour 2")
                    .containsExactly(0, 2);
            Map<Integer, Long> committed = fx.committedOffsets(config);
            assertThat(committed).as("group offsets").containsEntry(0, 3L * PER_FILE - 1)
                    .containsEntry(HALTED, 2L * PER_FILE - 1).containsEntry(2, 3L * PER_FILE - 1);
            assertThat(sink.alive()).as("a halted partition stops only itself: %s", sink.logText()).isTrue();
        }
    }

    /** The committed offset partition {@code p}'s newest progress object names (ADR 0016's key), or -2 without one. */
    private long progressCommitted(int p) {
        long committed = -2;
        String part = String.format("/%05d/", p);
        for (S3Object o : fx.objects()) {
            String k = o.key();
            if (k.startsWith("_progress/") && k.contains(part) && k.endsWith(".progress")) {
                String name = k.substring(k.lastIndexOf('/') + 1, k.length() - ".progress".length());
                committed = Math.max(committed, Long.parseLong(name.substring(name.indexOf('-') + 1)) - 1);
            }
        }
        return committed;
    }

    private void sendToEvery(List<Integer> partitions, int from) {
        for (int p : partitions) {
            int partition = p;
            fx.producer.sendJson(fx.stream, TOPIC, p, PER_FILE, i -> "{\"p\":" + partition + ",\"i\":" + (from + i) + "}");
        }
    }

    private String folder(Instant hour) {
        return fx.stream + "/" + TOPIC + "/" + DateTimeFormatter.ofPattern("yyyy-MM-dd/HH").withZone(ZoneOffset.UTC)
                .format(hour);
    }

    /** Folders holding a marker. */
    private Set<String> markers() {
        Set<String> out = new TreeSet<>();
        for (S3Object o : fx.objects()) {
            if (o.key().endsWith("/" + MARKER)) out.add(o.key().substring(0, o.key().length() - MARKER.length() - 1));
        }
        return out;
    }

    /** The partitions whose data objects are in {@code folder}. */
    private Set<Integer> partitionsIn(String folder) {
        Set<Integer> out = new TreeSet<>();
        for (S3Object o : fx.objects()) {
            var range = ObjectKey.parse(o.key());
            if (range.isPresent() && FileEntry.folderOf(o.key()).equals(folder)) {
                out.add(range.map(KeyRange::partitionId).get());
            }
        }
        return out;
    }

    /** The object sink's {@code unmarked} entries on {@code /status}. */
    private List<String> unmarked() throws Exception {
        HttpResponse<String> status = E2eFixture.admin(port, "/status");
        List<String> out = new ArrayList<>();
        if (status == null) return out;
        JsonNode sinks = JSON.readTree(status.body()).get("sinks");
        if (sinks == null || sinks.isEmpty() || sinks.get(0).get("unmarked") == null) return out;
        sinks.get(0).get("unmarked").forEach(u -> out.add(u.asText()));
        return out;
    }
}
