package dev.iggysink.application.table;

import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.port.out.SinkMetrics;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.time.Duration;
import java.time.Instant;

/**
 * The table self-audit tests' starting point: a consumer of a topic of two partitions committing to one in-memory
 * table in files of three records, on a clock the test moves.
 */
abstract class TableSelfAuditScene {
    static final String T = "lake.events";
    static final Duration INTERVAL = Duration.ofSeconds(10);
    static final PartitionRef P0 = new PartitionRef("app", "events", 0);

    final ManualClock clock = new ManualClock(Instant.parse("2026-03-16T14:02:31Z"));
    final ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 2);
    final InMemoryTables tables = new InMemoryTables();
    final TableTally tally = new TableTally();
    final TableConsumer consumer = new TableConsumer(topic, new LinesCodec(), tables,
            new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(3), INTERVAL, 100, 100,
                    ErrorTolerance.ALL), clock, new SinkMetrics() { }, tally);

    /** A self-audit of the table within {@code perMinute} requests, waiting by moving the clock, told of commits. */
    TableSelfAudit audit(int perMinute) {
        TableSelfAudit audit = new TableSelfAudit(tables, perMinute, clock, clock::advance, () -> false);
        consumer.selfAudit(audit);
        return audit;
    }

    /** {@code n} more records of partition 0 and {@code m} of partition 1 committed, in files of three. */
    void commit(int n, int m) throws Exception {
        if (n > 0) topic.append(0, n, i -> "n=" + i);
        if (m > 0) topic.append(1, m, i -> "m=" + i);
        consumer.step();
        clock.advance(INTERVAL);
        consumer.step();
    }
}
