package dev.iggysink.application.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The table sink's watermark (issue 44 item 2): each commit records, per partition, the record time before which
 * every record is in the table (a busy partition: its last committed record; an idle one: when its end offset was
 * read less 5 s; a halted one: where it stopped), and the least of them over the topic.
 */
class TableWatermarkTest {
    private static final String T = "lake.events";
    private static final Duration INTERVAL = Duration.ofSeconds(10);
    private static final Instant T0 = Instant.parse("2026-03-16T14:02:31Z");

    private final ManualClock clock = new ManualClock(T0);
    private final ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 2);
    private final InMemoryTables tables = new InMemoryTables();

    private TableConsumer consumer() {
        // four records a poll, so a partition with more waiting is busy at the commit
        TableSettings settings = new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(2), INTERVAL, 100, 4,
                ErrorTolerance.NONE);
        return new TableConsumer(topic, new LinesCodec(), tables, settings, clock, new SinkMetrics() { },
                new TableTally());
    }

    private static long micros(Instant i) {
        return ChronoUnit.MICROS.between(Instant.EPOCH, i);
    }

    private void stamp(Instant at) {
        topic.recordTimeMicros(micros(at));
    }

    @Test
    void a_busy_partition_holds_the_watermark_at_its_last_committed_record_and_idle_ones_follow_the_clock()
            throws SourceException {
        stamp(T0.minus(Duration.ofMinutes(10)));
        topic.append(0, 2, i -> "a" + i);
        stamp(T0.minus(Duration.ofMinutes(8)));
        topic.append(0, 10, i -> "b" + i);
        TableConsumer c = consumer();
        c.step();
        clock.advance(INTERVAL);
        c.step(); // offsets 0-7 of partition 0 committed; 8-11 not read yet; partition 1 holds nothing

        assertThat(tables.completeBefore(T)).containsExactlyInAnyOrderEntriesOf(Map.of(
                0, micros(T0.minus(Duration.ofMinutes(8))),
                1, micros(T0.plus(INTERVAL).minusSeconds(5))));
        assertThat(c.watermarks().get(T).before()).isEqualTo(T0.minus(Duration.ofMinutes(8)));

        clock.advance(INTERVAL);
        c.step(); // the rest of partition 0: now idle too
        Instant idleSince = T0.plus(INTERVAL.multipliedBy(2)).minusSeconds(5);
        assertThat(tables.completeBefore(T)).containsExactlyInAnyOrderEntriesOf(Map.of(0, micros(idleSince),
                1, micros(idleSince)));
        assertThat(c.watermarks().get(T).before()).isEqualTo(idleSince);
    }

    @Test
    void a_halted_partition_holds_the_watermark_at_the_last_record_before_its_halt() throws SourceException {
        stamp(T0.minus(Duration.ofMinutes(10)));
        topic.append(0, 2, i -> "a" + i);
        topic.append(1, 2, i -> "a" + i);
        stamp(T0.minus(Duration.ofMinutes(9)));
        topic.append(1, java.util.List.of("BAD record"));
        TableConsumer c = consumer();
        c.step();
        assertThat(c.partitions().get(topic.partition(1))).contains("bad record at offset 2");
        clock.advance(INTERVAL);
        c.step();
        assertThat(c.watermarks().get(T).before()).isEqualTo(T0.minus(Duration.ofMinutes(10)));

        // partition 0 goes on for minutes and is idle in between: partition 1 still holds the watermark back
        for (int minute = 1; minute <= 3; minute++) {
            clock.advance(Duration.ofMinutes(1));
            stamp(clock.instant());
            topic.append(0, 2, i -> "c" + i);
            c.step();
            clock.advance(INTERVAL);
            c.step();
        }
        assertThat(tables.completeBefore(T).get(0)).isGreaterThan(micros(T0.plus(Duration.ofMinutes(3))));
        assertThat(tables.completeBefore(T).get(1)).isEqualTo(micros(T0.minus(Duration.ofMinutes(10))));
        assertThat(c.watermarks().get(T).before()).isEqualTo(T0.minus(Duration.ofMinutes(10)));
    }
}
