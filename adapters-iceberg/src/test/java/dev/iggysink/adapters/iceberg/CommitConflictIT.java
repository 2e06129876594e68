package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.data.IcebergGenerics;
import org.apache.iceberg.data.Record;
import org.apache.iceberg.io.CloseableIterable;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.slf4j.LoggerFactory;

/**
 * Two members of a group commit to one table now and then at the same moment; the catalog refuses the second. That is
 * ordinary: the loser reads the table again and commits anew. It is one INFO line, not Iceberg's retry of the refused
 * attempt with a stack trace at WARN (a retry that could only fail: the commit is bound to the snapshot it read).
 */
class CommitConflictIT extends AllCatalogs {
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);
    private static final PartitionRef P1 = new PartitionRef("app", "events", 1);
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
            Types.NestedField.required(2, "iggy_partition_id", Types.IntegerType.get()),
            Types.NestedField.optional(3, "user", Types.StringType.get()));

    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    /** The sink's own lines (System.Logger, which goes to java.util.logging here). */
    private final List<java.util.logging.LogRecord> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final java.util.logging.Logger sinkLogger = java.util.logging.Logger.getLogger("dev.iggysink");
    private final java.util.logging.Handler sinkLines = new java.util.logging.Handler() {
        @Override
        public void publish(java.util.logging.LogRecord r) {
            lines.add(r);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };
    private int tableNumber;

    @Override
    String purpose() {
        return "conflicts";
    }

    @BeforeEach
    void captureLogs() {
        logs.list.clear();
        logs.start();
        root().addAppender(logs);
        lines.clear();
        sinkLogger.addHandler(sinkLines);
    }

    @AfterEach
    void stopCapture() {
        root().detachAppender(logs);
        sinkLogger.removeHandler(sinkLines);
    }

    private static Logger root() {
        return ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    private record Decoded(SinkRecord source) implements DecodedRecord {
        @Override
        public Optional<String> fieldText(String dottedPath) {
            return Optional.empty();
        }
    }

    private static TableStore.Staged stage(TableStore store, String table, PartitionRef p, long first, long last)
            throws Exception {
        TableStore.RowFile file = store.newFile(table);
        for (long o = first; o <= last; o++) {
            file.append(new Decoded(new SinkRecord(p, o, 1_000_000L, 1_000_000L, new MessageId(0, o + 1), List.of(),
                    ("{\"user\":\"u" + o + "\"}").getBytes(StandardCharsets.UTF_8))));
        }
        return file.stage();
    }

    private static List<Long> offsets(Catalog catalog, String table) throws IOException {
        List<Long> out = new ArrayList<>();
        try (CloseableIterable<Record> rows = IcebergGenerics.read(catalog.loadTable(TableIdentifier.parse(table)))
                .build()) {
            rows.forEach(r -> out.add((Long) r.getField("iggy_offset")));
        }
        out.sort(Long::compare);
        return out;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("catalogs")
    void a_commit_the_catalog_refuses_for_a_race_is_one_info_line_and_goes_through_on_the_next_attempt(
            CatalogFixture catalogs) throws Exception {
        Catalog catalog = catalogs.newClient();
        Namespace ns = Namespace.of("lake");
        if (catalog instanceof SupportsNamespaces n && !n.namespaceExists(ns)) n.createNamespace(ns);
        String table = "lake.c" + (++tableNumber);
        catalog.createTable(TableIdentifier.parse(table), SCHEMA, PartitionSpec.unpartitioned());
        try (IcebergTables a = new IcebergTables(catalogs.newClient(), "sink");
             IcebergTables b = new IcebergTables(catalogs.newClient(), "sink")) {
            TableStore.Staged a0 = stage(a, table, P0, 0, 1);
            TableStore.Staged b1 = stage(b, table, P1, 0, 2);
            // B commits after A's attempt was applied and before the catalog swaps it: the catalog refuses A's
            a.atSwap = () -> {
                a.atSwap = () -> { };
                try {
                    b.commit(table, List.of(new TableStore.Append(P1, -1, 2, List.of(b1))));
                } catch (StoreException e) {
                    throw new IllegalStateException(e);
                }
            };
            logs.list.clear();
            lines.clear();
            TableStore.CommitResult result = a.commit(table, List.of(new TableStore.Append(P0, -1, 1, List.of(a0))));

            assertThat(result.committed()).containsExactly(P0);
            assertThat(result.conflicts()).isEqualTo(1);
            // the in-JVM REST server logs the 409 it answers: that is the catalog's log, not the sink's
            List<ILoggingEvent> events = logs.list.stream()
                    .filter(e -> !e.getLoggerName().equals("org.apache.iceberg.rest.RESTCatalogServlet")).toList();
            assertThat(events).as("nothing at WARN or above for an ordinary race: %s", events.stream()
                    .filter(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).map(e -> e.getLoggerName() + ": " + e.getFormattedMessage())
                    .toList()).noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.WARN));
            assertThat(lines).noneMatch(r -> r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue());
            assertThat(lines).filteredOn(r -> r.getLoggerName().equals(IcebergTables.class.getName())).singleElement()
                    .satisfies(r -> {
                        assertThat(r.getLevel()).isEqualTo(java.util.logging.Level.INFO);
                        assertThat(r.getParameters()).contains(table);
                        assertThat(r.getMessage()).contains("another writer committed first");
                    });
            assertThat(a.durableOffsets(table, List.of(P0, P1))).containsEntry(P0, 1L).containsEntry(P1, 2L);
        }
        assertThat(offsets(catalog, table)).containsExactly(0L, 0L, 1L, 1L, 2L);
    }
}
