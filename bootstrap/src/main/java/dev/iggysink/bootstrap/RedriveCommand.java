package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.adapters.format.RecordCodecs;
import dev.iggysink.adapters.iceberg.IcebergTables;
import dev.iggysink.adapters.iceberg.TableChecks;
import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.service.Redrive;
import dev.iggysink.application.service.TableRedrive;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import java.io.PrintWriter;
import java.time.InstantSource;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Brings dead letters home: each one the current configuration decodes goes to the object the sink would have written
 * for it (for an Iceberg table sink: as a row to each of its tables), once, and its dead letter moves below
 * {@code <dlq>/redriven/} with a note (ADR 0018). Reads the group's offsets without joining it, so it runs beside a
 * live sink; dead letters above the committed offset are left to it.
 */
@Command(name = "redrive", mixinStandardHelpOptions = true,
        description = "Write dead letters that decode now to where the sink would have put them, exactly once.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {ExitCodes.REDRIVE_HELP_0, ExitCodes.REDRIVE_HELP_1, ExitCodes.HELP_2,
                ExitCodes.AUDIT_HELP_3})
final class RedriveCommand extends ConfigFileCommand {
    @Option(names = "--dry-run", description = "say what would happen; write nothing")
    boolean dryRun;

    @Option(names = "--stream", description = "only this stream's dead letters")
    String stream;

    @Option(names = "--topic", description = "only this topic's dead letters")
    String topic;

    @Option(names = "--partition", description = "only this partition's dead letters")
    Integer partition;

    @Option(names = "--offsets", paramLabel = "FIRST-LAST", description = "only dead letters of offsets FIRST to"
            + " LAST (inclusive), or of one offset")
    String offsets;

    @Option(names = "--error", paramLabel = "TEXT", description = "only dead letters whose error contains TEXT")
    String error;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        Redrive.Filter filter;
        try {
            filter = filter();
        } catch (IllegalArgumentException e) {
            err.println("error: " + e.getMessage() + " (see 'iggy-s3-sink redrive --help')");
            err.flush();
            return ExitCodes.CONFIG;
        }
        Map<Redrive.Action, Integer> counts = new EnumMap<>(Redrive.Action.class);
        if (TableConnectorReader.isTableSink(config)) {
            TableConnectorReader.Result table = TableConnectorReader.load(config, System.getenv());
            if (table.connector().isEmpty()) return configErrors(out, table.errors());
            Optional<Integer> failed = tableSink(table.connector().get(), filter, out, err, counts);
            return failed.isPresent() ? failed.get() : summary(out, counts);
        }
        ConfigResult result = ConnectorConfigLoader.load(config, System.getenv());
        if (!result.ok()) return configErrors(out, result.errors());
        for (ConnectorConfig sink : result.sinks()) {
            try {
                redrive(sink, filter, out, counts);
            } catch (SourceException | CommittedOffsets.Unreadable e) {
                return failed(out, err, e.getMessage());
            } catch (StoreException e) {
                return failed(out, err, "the object store at " + SinkAssembly.storeEndpoint(sink.storage()) + ": "
                        + e.getMessage());
            }
        }
        for (TableConnectorConfig t : result.tableSinks()) {
            Optional<Integer> failed = tableSink(t, filter, out, err, counts);
            if (failed.isPresent()) return failed.get();
        }
        return summary(out, counts);
    }

    private int summary(PrintWriter out, Map<Redrive.Action, Integer> counts) {
        int left = counts.getOrDefault(Redrive.Action.STILL_FAILS, 0)
                + counts.getOrDefault(Redrive.Action.NOT_COMMITTED, 0);
        out.println((dryRun ? "REDRIVE DRY RUN (nothing written): " : "REDRIVE: ")
                + counts.getOrDefault(Redrive.Action.REDRIVEN, 0) + (dryRun ? " would be redriven, " : " redriven, ")
                + counts.getOrDefault(Redrive.Action.FINISHED, 0) + " finished from an earlier run, "
                + counts.getOrDefault(Redrive.Action.ALREADY_DELIVERED, 0) + " already delivered, "
                + counts.getOrDefault(Redrive.Action.STILL_FAILS, 0) + " still failing, "
                + counts.getOrDefault(Redrive.Action.NOT_COMMITTED, 0) + " not yet committed by the sink");
        out.flush();
        return left == 0 ? ExitCodes.OK : ExitCodes.INCOMPLETE;
    }

    /**
     * Redrives the dead letters of one Iceberg table sink into its tables (ADR 0018, table sink); the exit code when
     * it had to stop.
     */
    private Optional<Integer> tableSink(TableConnectorConfig c, Redrive.Filter filter, PrintWriter out,
                                        PrintWriter err, Map<Redrive.Action, Integer> counts) {
        try {
            for (StreamSettings st : c.streams()) {
                if (stream != null && !stream.equals(st.stream())) continue;
                try (IcebergTables store = IcebergTables.open(TableSinkRunner.catalog(c.catalog()),
                        st.consumerGroup(), TableSinkRunner.template(c), c.table().dlqPrefix())) {
                    for (String t : st.topics()) {
                        if (topic != null && !topic.equals(t)) continue;
                        try (IggyGroupOffsets group = new IggyGroupOffsets(SinkAssembly.iggy(c.iggy()), st.stream(),
                                t, st.consumerGroup(), SinkAssembly.IGGY_CALL_TIMEOUT)) {
                            TableRedrive redrive = new TableRedrive(store, TableSinkRunner.codec(c, st),
                                    c.table().routing(), c.table().dlqPrefix(), st.stream(), t,
                                    InstantSource.system());
                            print(redrive.run(p -> CommittedOffsets.of(group, p), filter, dryRun), out, counts);
                        }
                    }
                }
            }
        } catch (SourceException | CommittedOffsets.Unreadable e) {
            return Optional.of(failed(out, err, e.getMessage()));
        } catch (StoreException | RuntimeException e) {
            return Optional.of(failed(out, err, "the catalog at " + TableChecks.where(TableSinkRunner.catalog(
                    c.catalog())) + ": " + e.getMessage()));
        }
        return Optional.empty();
    }

    private void print(List<Redrive.Outcome> outcomes, PrintWriter out, Map<Redrive.Action, Integer> counts) {
        for (Redrive.Outcome o : outcomes) {
            counts.merge(o.action(), 1, Integer::sum);
            out.println(line(o));
        }
        out.flush();
    }

    private static int failed(PrintWriter out, PrintWriter err, String why) {
        out.flush();
        err.println("redrive stopped: " + why + " (what was done stays done; run it again)");
        err.flush();
        return ExitCodes.STARTUP;
    }

    private Redrive.Filter filter() {
        long first = 0;
        long last = Long.MAX_VALUE;
        if (offsets != null) {
            String[] parts = offsets.trim().split("-", -1);
            try {
                if (parts.length == 1) {
                    first = Long.parseLong(parts[0]);
                    last = first;
                } else if (parts.length == 2) {
                    first = Long.parseLong(parts[0]);
                    last = Long.parseLong(parts[1]);
                } else {
                    throw new NumberFormatException();
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--offsets '" + offsets + "' is not FIRST-LAST or one offset");
            }
            if (first < 0 || last < first) {
                throw new IllegalArgumentException("--offsets '" + offsets + "' must be 0 <= FIRST <= LAST");
            }
        }
        if (partition != null && partition < 0) throw new IllegalArgumentException("--partition must be >= 0");
        return new Redrive.Filter(partition == null ? OptionalInt.empty() : OptionalInt.of(partition), first, last,
                Optional.ofNullable(error));
    }

    private void redrive(ConnectorConfig config, Redrive.Filter filter, PrintWriter out,
                         Map<Redrive.Action, Integer> counts) throws SourceException, StoreException {
        SinkSettings s = config.sink();
        try (ObjectStore store = SinkAssembly.store(config)) {
            for (StreamSettings st : s.streams()) {
                if (stream != null && !stream.equals(st.stream())) continue;
                for (String t : st.topics()) {
                    if (topic != null && !topic.equals(t)) continue;
                    try (IggyGroupOffsets group = new IggyGroupOffsets(SinkAssembly.iggy(config.iggy()), st.stream(),
                            t, st.consumerGroup(), SinkAssembly.IGGY_CALL_TIMEOUT)) {
                        Redrive redrive = new Redrive(store,
                                RecordCodecs.forStream(st, s.output(), s.transforms()), s.output(),
                                s.delivery().dlqPrefix(), st.stream(), t, InstantSource.system())
                                .markers(s.key(), st.consumerGroup());
                        print(redrive.run(p -> CommittedOffsets.of(group, p), filter, dryRun), out, counts);
                    }
                }
            }
        }
    }

    private String line(Redrive.Outcome o) {
        return switch (o.action()) {
            case REDRIVEN -> (dryRun ? "would redrive " : "redriven ") + o.letter() + " -> " + o.detail();
            case FINISHED -> (dryRun ? "would finish " : "finished ") + o.letter() + ": an earlier run wrote "
                    + o.detail();
            case ALREADY_DELIVERED -> "already delivered " + o.letter() + ": its offset is in " + o.detail()
                    + (dryRun ? "" : "; the dead letter moved below redriven/");
            case STILL_FAILS -> "still fails " + o.letter() + ": " + o.detail();
            case NOT_COMMITTED -> "not yet committed " + o.letter() + ": " + o.detail()
                    + "; run redrive again once the sink has committed past it";
        };
    }
}
