package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.adapters.format.ObjectOffsets;
import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.application.port.in.AuditUseCase;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.service.Audit;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.domain.message.PartitionRef;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Compares what is in the bucket with the consumer group's committed offsets: covered ranges, gaps, overlaps and
 * objects whose content disagrees with their key. Reads offsets without joining the group, so it is safe to run next
 * to a live sink. An Iceberg table sink (its own file, or among the sinks of a runtime config) is audited by
 * {@link TableAuditRun}.
 */
@Command(name = "audit", mixinStandardHelpOptions = true,
        description = "Check the bucket against the committed offsets: coverage, gaps, overlaps. Exit 1 on a gap.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {ExitCodes.AUDIT_HELP_0, ExitCodes.AUDIT_HELP_1, ExitCodes.HELP_2, ExitCodes.AUDIT_HELP_3})
final class AuditCommand extends ConfigFileCommand {
    @Option(names = "--no-content", description = "trust keys; do not read objects to check their offsets")
    boolean noContent;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (TableConnectorReader.isTableSink(config)) return TableAuditRun.run(config, out, err);
        ConfigResult result = ConnectorConfigLoader.load(config, System.getenv());
        if (!result.ok()) return configErrors(out, result.errors());
        int code = result.sinks().isEmpty() ? ExitCodes.OK : auditObjectSinks(result.sinks(), out, err);
        // A runtime config's table sinks, each as audit of its own file would; the exit code is the worst of all.
        for (TableConnectorConfig t : result.tableSinks()) {
            code = Math.max(code, TableAuditRun.audit(t, "table sink " + t.key() + ": ", out, err));
        }
        out.flush();
        return code;
    }

    private int auditObjectSinks(List<ConnectorConfig> sinks, PrintWriter out, PrintWriter err) {
        Totals totals = new Totals();
        for (ConnectorConfig s : sinks) {
            String failure = null;
            try {
                audit(s, out, totals);
            } catch (SourceException | CommittedOffsets.Unreadable e) {
                failure = e.getMessage();
            } catch (StoreException e) {
                failure = "the object store at " + SinkAssembly.storeEndpoint(s.storage()) + ": " + e.getMessage();
            }
            if (failure != null) {
                out.flush();
                err.println("audit failed: " + failure);
                err.flush();
                return ExitCodes.STARTUP;
            }
        }
        totals.unchecked.forEach((why, n) -> out.println("content not checked (key trusted) for " + n
                + " object(s): " + why));
        if (!noContent && !totals.trustedByKey.isEmpty()) {
            out.println("trusted by key on restart: " + totals.trustedByKey.size() + " object(s) carry no"
                    + " x-amz-meta-iggy-* metadata and name no offsets in their content (e.g. "
                    + totals.trustedByKey.get(0) + "): the sink cannot tell them from an earlier life of the topic;"
                    + " move them away before a topic of the same name starts again");
        }
        if (!totals.ok) {
            out.println("AUDIT FAILED: see gaps/mismatches above");
        } else {
            StringBuilder line = new StringBuilder("AUDIT OK: ");
            line.append(totals.overlapping == 0 ? "every committed offset is in exactly one object"
                    : totals.overlapping + " overlapping object(s) (duplicates, nothing missing)");
            if (totals.deadLettered > 0) {
                line.append("; ").append(totals.deadLettered)
                        .append(" offset(s) are only in dead-letter objects (listed above)");
            }
            out.println(line);
        }
        out.flush();
        return totals.ok ? ExitCodes.OK : ExitCodes.INCOMPLETE;
    }

    private static final class Totals {
        boolean ok = true;
        int overlapping;
        int deadLettered;
        final Map<String, Integer> unchecked = new TreeMap<>();
        final List<String> trustedByKey = new java.util.ArrayList<>();
    }

    /** The offsets an object holds; one that cannot be read is counted under its reason and trusted by its key. */
    private static Optional<long[]> inside(String key, byte[] content, Map<String, Integer> unchecked) {
        ObjectOffsets.Result read = ObjectOffsets.read(key, content);
        if (read instanceof ObjectOffsets.Found f) return Optional.of(new long[] {f.first(), f.last()});
        unchecked.merge(((ObjectOffsets.CannotRead) read).reason(), 1, Integer::sum);
        return Optional.empty();
    }

    private void audit(ConnectorConfig config, PrintWriter out, Totals totals)
            throws SourceException, StoreException {
        SinkSettings s = config.sink();
        try (ObjectStore store = SinkAssembly.store(config)) {
            AuditUseCase audit = new Audit(store);
            for (StreamSettings stream : s.streams()) {
                for (String topic : stream.topics()) {
                    try (IggyGroupOffsets offsets = new IggyGroupOffsets(SinkAssembly.iggy(config.iggy()), stream.stream(),
                            topic,
                            stream.consumerGroup(), SinkAssembly.IGGY_CALL_TIMEOUT)) {
                        List<PartitionRef> partitions = offsets.partitions();
                        String prefix = audit.listPrefix(s.output().prefix(), s.output().pathTemplate(),
                                stream.stream(), topic);
                        String dlq = audit.deadLetterPrefix(s.output().prefix(), s.delivery().dlqPrefix(),
                                stream.stream(), topic);
                        List<AuditUseCase.PartitionAudit> audits = audit.audit(prefix, s.delivery().dlqPrefix(), dlq,
                                partitions, p -> CommittedOffsets.of(offsets, p),
                                noContent ? (k, c) -> Optional.empty() : (k, c) -> inside(k, c, totals.unchecked));
                        for (AuditUseCase.PartitionAudit a : audits) {
                            totals.ok &= a.ok();
                            totals.overlapping += a.overlaps().size();
                            totals.deadLettered += a.deadLettered().size();
                            totals.trustedByKey.addAll(a.trustedByKey());
                            print(out, a, dlq);
                        }
                    }
                }
            }
        }
    }

    private static void print(PrintWriter out, AuditUseCase.PartitionAudit a, String deadLetterPrefix) {
        out.printf("%s: committed=%d objects=%d covered=%s gaps=%s overlaps=%d mismatches=%d%n", a.partition(),
                a.committed(), a.objects(), a.covered(), a.gaps(), a.overlaps().size(), a.mismatches().size());
        if (!a.deadLettered().isEmpty()) {
            StringBuilder list = new StringBuilder();
            for (long o : a.deadLettered()) list.append(list.length() == 0 ? "" : ", ").append(o);
            out.println("  dead letters: offset" + (a.deadLettered().size() == 1 ? " " : "s ") + list
                    + (a.deadLettered().size() == 1 ? " is" : " are") + " in dead-letter objects under "
                    + deadLetterPrefix);
        }
        a.overlaps().forEach(o -> out.println("  overlap: " + o));
        a.mismatches().forEach(m -> out.println("  mismatch: " + m));
    }
}
