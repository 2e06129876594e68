package dev.iggysink.domain.rotation;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.buffer.OpenFile;
import dev.iggysink.domain.message.PartitionRef;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

class RotationProperties {
    private static final PartitionRef P = new PartitionRef("s", "t", 3);

    /** Drives a stream of records through the policy the way the partition writer does. */
    @Property
    void never_seals_an_empty_file_and_every_file_respects_its_limits(
            @ForAll @Size(min = 1, max = 200) List<@IntRange(min = 0, max = 300) Integer> sizes,
            @ForAll @LongRange(min = 1, max = 1000) long maxBytes,
            @ForAll @LongRange(min = 1, max = 20) long maxRecords,
            @ForAll @LongRange(min = 1, max = 50) long spanMillis) {
        RotationPolicy policy = RotationPolicy.bySize(maxBytes).withMaxRecords(maxRecords)
                .withRecordSpan(Duration.ofMillis(spanMillis));
        List<OpenFile> sealed = new ArrayList<>();
        OpenFile file = new OpenFile(P, "d", Instant.EPOCH);
        for (int i = 0; i < sizes.size(); i++) {
            long ts = i * 7_000L; // 7 ms apart
            Optional<RotationReason> before = policy.beforeAppend(file, ts);
            if (before.isPresent()) {
                assertThat(file.isEmpty()).isFalse();
                sealed.add(file);
                file.seal("k", before.get());
                file = new OpenFile(P, "d", Instant.EPOCH);
            }
            file.add(i, ts, sizes.get(i));
            Optional<RotationReason> after = policy.afterAppend(file);
            if (after.isPresent()) {
                sealed.add(file);
                file.seal("k", after.get());
                file = new OpenFile(P, "d", Instant.EPOCH);
            }
        }
        assertThat(policy.afterAppend(file).isPresent()).isFalse();
        for (OpenFile f : sealed) {
            assertThat(f.recordCount()).isBetween(1L, maxRecords);
            // overshoot by at most the last record: without it the file was below the limit
            assertThat(f.recordBytes() - sizes.get((int) f.lastOffset())).isLessThan(maxBytes);
            assertThat(f.lastTimestampMicros() - f.firstTimestampMicros()).isLessThan(spanMillis * 1000);
        }
        assertThat(sealed.stream().mapToLong(OpenFile::recordCount).sum() + file.recordCount())
                .isEqualTo(sizes.size());
    }
}
