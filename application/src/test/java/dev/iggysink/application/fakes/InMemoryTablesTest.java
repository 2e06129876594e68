package dev.iggysink.application.fakes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.port.out.DecodedRecord;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The fake finds a replaced or dropped table when the real store ({@code IcebergTables}, see ReplacedTablesIT) does:
 * at its next lookup or commit of the table, never when the catalog changes. The table consumer's tests prove what
 * the consumer does with the real store only while this holds.
 */
class InMemoryTablesTest {
    private static final String T = "lake.events";
    private static final PartitionRef P0 = new PartitionRef("app", "events", 0);

    private final InMemoryTables tables = new InMemoryTables();

    private TableStore.Staged stage(long first, long last) throws Exception {
        TableStore.RowFile rows = tables.newFile(T);
        for (long o = first; o <= last; o++) {
            SinkRecord r = new SinkRecord(P0, o, 0, 0, MessageId.ZERO, List.of(),
                    ("n=" + o).getBytes(StandardCharsets.UTF_8));
            rows.append(new DecodedRecord() {
                @Override
                public SinkRecord source() {
                    return r;
                }

                @Override
                public Optional<String> fieldText(String dottedPath) {
                    return Optional.empty();
                }
            });
        }
        return rows.stage();
    }

    @Test
    void a_replaced_table_is_found_by_the_next_commit_which_refuses_the_files_written_for_the_old_one()
            throws Exception {
        tables.open(T);
        tables.commit(T, List.of(new TableStore.Append(P0, -1, 4, List.of(stage(0, 4)))));
        TableStore.Staged forOldTable = stage(5, 7);

        tables.replace(T);
        assertThat(tables.replacement(T)).as("nothing read the table since it was replaced").isEmpty();

        assertThatThrownBy(() -> tables.commit(T, List.of(new TableStore.Append(P0, 4, 7, List.of(forOldTable)))))
                .isInstanceOf(StoreException.class).hasMessageContaining("was replaced")
                .matches(e -> ((StoreException) e).retryable());
        assertThat(tables.replacement(T)).contains(new TableStore.Replacement(T, "id-0", "id-1", 1));
        tables.discard(forOldTable);
        assertThat(tables.durableOffsets(T, List.of(P0))).isEmpty();

        tables.commit(T, List.of(new TableStore.Append(P0, 4, 7, List.of(stage(5, 7)))));
        assertThat(tables.durableOffsets(T, List.of(P0))).isEqualTo(Map.of(P0, 7L));
    }

    @Test
    void a_replaced_table_is_found_by_the_next_lookup() throws Exception {
        tables.commit(T, List.of(new TableStore.Append(P0, -1, 4, List.of(stage(0, 4)))));
        tables.replace(T);
        assertThat(tables.replacement(T)).isEmpty();
        assertThat(tables.durableOffsets(T, List.of(P0))).isEmpty();
        assertThat(tables.replacement(T)).contains(new TableStore.Replacement(T, "id-0", "id-1", 1));
    }

    @Test
    void a_dropped_table_is_refused_for_good_until_created_again_then_found_replaced() throws Exception {
        tables.commit(T, List.of(new TableStore.Append(P0, -1, 1, List.of(stage(0, 1)))));
        tables.drop(T);
        assertThatThrownBy(() -> tables.durableOffsets(T, List.of(P0))).isInstanceOf(StoreException.class)
                .hasMessageContaining("was dropped").matches(e -> !((StoreException) e).retryable());

        tables.createAgain(T);
        assertThat(tables.durableOffsets(T, List.of(P0))).isEmpty();
        assertThat(tables.replacement(T)).contains(new TableStore.Replacement(T, "id-0", "id-1", 1));
    }
}
