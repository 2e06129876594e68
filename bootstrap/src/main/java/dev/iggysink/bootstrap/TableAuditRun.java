package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConfigError;
import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.adapters.iceberg.IcebergTables;
import dev.iggysink.adapters.iceberg.TableChecks;
import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.application.table.TableAudit;
import dev.iggysink.domain.message.PartitionRef;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * {@code audit} of an Iceberg table sink: per partition and table, the group's committed offset against the offset
 * map of the table's current snapshot and the offsets its rows hold (gaps, overlaps); offsets in dead letters count as
 * delivered. Reads offsets without joining the group and the table without writing, so it is safe beside running
 * sinks.
 */
final class TableAuditRun {
    private TableAuditRun() {
    }

    static int run(Path config, PrintWriter out, PrintWriter err) {
        TableConnectorReader.Result result = TableConnectorReader.load(config, System.getenv());
        if (result.connector().isEmpty()) {
            for (ConfigError e : result.errors()) out.println("config error: " + e);
            out.flush();
            return ExitCodes.CONFIG;
        }
        return audit(result.connector().get(), "", out, err);
    }

    /**
     * Audits one table sink; {@code label} starts its verdict line and its failure ("" for a table sink's own file,
     * "table sink KEY: " among the sinks of a runtime config). Returns the exit code.
     */
    static int audit(TableConnectorConfig c, String label, PrintWriter out, PrintWriter err) {
        List<String> tables = c.table().routing().tables();
        if (tables.isEmpty()) {
            err.println(label + "audit: dynamic routing names its tables per record; list the tables to check in"
                    + " [plugin_config] tables");
            err.flush();
            return ExitCodes.CONFIG;
        }
        boolean ok = true;
        long lettered = 0;
        try {
            for (StreamSettings stream : c.streams()) {
                try (IcebergTables store = IcebergTables.open(TableSinkRunner.catalog(c.catalog()),
                        stream.consumerGroup(), Optional.empty(), c.table().dlqPrefix())) {
                    for (String topic : stream.topics()) {
                        try (IggyGroupOffsets offsets = new IggyGroupOffsets(SinkAssembly.iggy(c.iggy()),
                                stream.stream(), topic, stream.consumerGroup(), SinkAssembly.IGGY_CALL_TIMEOUT)) {
                            List<PartitionRef> partitions = offsets.partitions();
                            // dead-lettered offsets are delivered: no gap, and reported as such
                            String letters = TableAudit.deadLetterPrefix(c.table().dlqPrefix(), stream.stream(),
                                    topic);
                            List<String> deadLetters = store.deadLetterKeys(letters);
                            for (String table : tables) {
                                Map<PartitionRef, Long> map = store.durableOffsets(table, partitions);
                                Optional<Map<PartitionRef, List<Long>>> rows = store.rowOffsets(table, partitions);
                                for (PartitionRef p : partitions) {
                                    TableAudit a = TableAudit.of(table, p, offsets.committedOffset(p).orElse(-1),
                                            map.getOrDefault(p, -1L), rows.map(r -> r.getOrDefault(p, List.of())),
                                            TableAudit.deadLettered(deadLetters, letters, p.partitionId()));
                                    ok &= a.ok();
                                    lettered += a.deadLettered().size();
                                    out.println(a.line());
                                }
                            }
                        }
                    }
                }
            }
        } catch (SourceException e) {
            out.flush();
            err.println(label + "audit failed: " + e.getMessage());
            err.flush();
            return ExitCodes.STARTUP;
        } catch (StoreException | RuntimeException e) {
            out.flush();
            err.println(label + "audit failed: the catalog at " + TableChecks.where(TableSinkRunner.catalog(c.catalog()))
                    + ": " + e.getMessage());
            err.flush();
            return ExitCodes.STARTUP;
        }
        out.println(label + (ok ? "AUDIT OK: every committed offset is in its tables exactly once"
                + (lettered > 0 ? " or in a dead letter (" + lettered + " offset(s), listed above)" : "")
                : "AUDIT FAILED: see gaps/overlaps above"));
        out.flush();
        return ok ? ExitCodes.OK : ExitCodes.INCOMPLETE;
    }
}
