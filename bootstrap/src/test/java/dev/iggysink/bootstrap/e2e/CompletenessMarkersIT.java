package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.domain.completeness.FileEntry;
import dev.iggysink.domain.completeness.Markers;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Completeness markers with the fat jar and MinIO: three partitions, two members, records arriving for over two
 * minutes into minute folders (record time is Iggy's append time: the broker takes no timestamp from the producer,
 * so minute windows stand in for the hours), one member killed with -9 mid-run and started again. Every
 * folder then gets exactly one marker, listing exactly the objects that hold its records; reading only the listed
 * objects gives every record exactly once.
 */
class CompletenessMarkersIT extends E2eTest {
    private static final String TOPIC = "clicks";
    private static final int PARTITIONS = 3;
    private static final String MARKER = "_COMPLETE";

    @Test
    @Timeout(480)
    void every_folder_gets_one_marker_listing_exactly_its_objects_across_a_kill_9() throws Exception {
        fx.topic(TOPIC, PARTITIONS);
        Path config = fx.config(List.of(TOPIC), "json", """
                path_template = "{stream}/{topic}/{date}/{hour}/{minute}"
                completion_marker = "_COMPLETE"
                file_rotation = "messages"
                max_messages_per_file = 40
                rotate_schedule_interval = "5s"
                """);
        long perPartition;
        try (SinkProcess a = SinkProcess.run(config, fx.log("a"), Map.of());
             SinkProcess b = SinkProcess.run(config, fx.log("b"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> a.logText().contains("consuming ")
                    && b.logText().contains("consuming "));
            long firstMinute = System.currentTimeMillis() / 60_000;
            Rounds rounds = Rounds.start(fx, TOPIC, PARTITIONS, 2, 3000, Rounds.PAGES);
            rounds.awaitSent(5);
            rounds.awaitMore(200);
            a.kill9();
            try (SinkProcess again = SinkProcess.run(config, fx.log("a-again"), Map.of())) {
                // Records keep arriving until the wall clock has crossed two minute boundaries since the first, so
                // they fill three minute folders at least however fast this machine sends a round.
                for (int i = 0; i < 3 || System.currentTimeMillis() / 60_000 < firstMinute + 2; i++) {
                    rounds.awaitMore(150); // each within Rounds' minute
                }
                perPartition = rounds.finish();
                // The last minute closes once the wall clock is past it (idle partitions) and its files are sealed.
                await().atMost(Duration.ofSeconds(150)).pollInterval(Duration.ofSeconds(1)).until(() -> {
                    Set<String> folders = dataFolders();
                    return !folders.isEmpty() && markers().keySet().containsAll(folders)
                            && fx.committedOffsets(config).values().stream().allMatch(c -> c == perPartition - 1);
                });
                again.terminate();
                assertThat(again.waitFor(Duration.ofSeconds(60))).as(again.logText()).isZero();
            }
            b.terminate();
            assertThat(b.waitFor(Duration.ofSeconds(60))).as(b.logText()).isZero();
        }

        Set<String> folders = dataFolders();
        Map<String, String> markers = markers();
        assertThat(folders).as("records spread over several minute folders").hasSizeGreaterThanOrEqualTo(3);
        assertThat(markers.keySet()).as("one marker per folder").isEqualTo(folders);
        Map<String, String> listedObjects = new TreeMap<>();
        for (Map.Entry<String, String> m : markers.entrySet()) {
            List<FileEntry> listed = Markers.objectsOf(m.getValue().getBytes(StandardCharsets.UTF_8), m.getKey());
            Set<String> inFolder = new TreeSet<>();
            for (S3Object o : fx.objects()) {
                if (ObjectKey.parse(o.key()).isPresent() && FileEntry.folderOf(o.key()).equals(m.getKey())) {
                    inFolder.add(o.key());
                    listed.stream().filter(f -> f.key().equals(o.key())).forEach(f ->
                            assertThat(f.size()).as("size of %s", o.key()).isEqualTo(o.size()));
                }
            }
            assertThat(listed).extracting(FileEntry::key).as("objects of %s", m.getKey())
                    .containsExactlyInAnyOrderElementsOf(inFolder);
            assertThat(m.getValue()).contains("\"version\": 1,", "\"group\": \"s3_sink\"");
            for (FileEntry f : listed) listedObjects.put(f.key(), fx.read(f.key()));
        }
        // A reader of the listed objects alone (no LIST) sees every record once.
        E2eFixture.assertEveryOffsetOnce(E2eFixture.copies(listedObjects), "listed objects", PARTITIONS,
                perPartition);
    }

    private Set<String> dataFolders() {
        Set<String> out = new TreeSet<>();
        for (S3Object o : fx.objects()) {
            if (o.key().startsWith(fx.stream + "/" + TOPIC + "/") && ObjectKey.parse(o.key()).isPresent()) {
                out.add(FileEntry.folderOf(o.key()));
            }
        }
        return out;
    }

    private Map<String, String> markers() {
        Map<String, String> out = new TreeMap<>();
        for (S3Object o : fx.objects()) {
            if (o.key().endsWith("/" + MARKER)) {
                out.put(o.key().substring(0, o.key().length() - MARKER.length() - 1), fx.read(o.key()));
            }
        }
        return out;
    }
}
