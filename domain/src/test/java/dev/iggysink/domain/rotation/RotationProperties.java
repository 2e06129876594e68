package dev.iggysink.domain.rotation;

import static dev.iggysink.domain.Seeded.intBetween;
import static dev.iggysink.domain.Seeded.longBetween;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.Seeded;
import dev.iggysink.domain.buffer.OpenFile;
import dev.iggysink.domain.message.PartitionRef;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class RotationProperties {
    private static final PartitionRef P = new PartitionRef("s", "t", 3);

    /** Drives a stream of records through the policy the way the partition writer does. */
    @Test
    void never_seals_an_empty_file_and_every_file_respects_its_limits() {
        Seeded.check(1000, r -> {
            int[] sizes = new int[intBetween(r, 1, 200)];
            for (int i = 0; i < sizes.length; i++) sizes[i] = intBetween(r, 0, 300);
            long maxBytes = longBetween(r, 1, 1000);
            long maxRecords = longBetween(r, 1, 20);
            long spanMillis = longBetween(r, 1, 50);
            String given = "max " + maxBytes + " B, " + maxRecords + " records, " + spanMillis + " ms";
            RotationPolicy policy = RotationPolicy.bySize(maxBytes).withMaxRecords(maxRecords)
                    .withRecordSpan(Duration.ofMillis(spanMillis));
            List<OpenFile> sealed = new ArrayList<>();
            OpenFile file = new OpenFile(P, "d", Instant.EPOCH);
            for (int i = 0; i < sizes.length; i++) {
                long ts = i * 7_000L; // 7 ms apart
                Optional<RotationReason> before = policy.beforeAppend(file, ts);
                if (before.isPresent()) {
                    assertThat(file.isEmpty()).isFalse();
                    sealed.add(file);
                    file.seal("k", before.get());
                    file = new OpenFile(P, "d", Instant.EPOCH);
                }
                file.add(i, ts, sizes[i]);
                Optional<RotationReason> after = policy.afterAppend(file);
                if (after.isPresent()) {
                    sealed.add(file);
                    file.seal("k", after.get());
                    file = new OpenFile(P, "d", Instant.EPOCH);
                }
            }
            assertThat(policy.afterAppend(file).isPresent()).isFalse();
            for (OpenFile f : sealed) {
                assertThat(f.recordCount()).as(given).isBetween(1L, maxRecords);
                // overshoot by at most the last record: without it the file was below the limit
                assertThat(f.recordBytes() - sizes[(int) f.lastOffset()]).as(given).isLessThan(maxBytes);
                assertThat(f.lastTimestampMicros() - f.firstTimestampMicros()).as(given)
                        .isLessThan(spanMillis * 1000);
            }
            assertThat(sealed.stream().mapToLong(OpenFile::recordCount).sum() + file.recordCount())
                    .isEqualTo(sizes.length);
        });
    }
}
