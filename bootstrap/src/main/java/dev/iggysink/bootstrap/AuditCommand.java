package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConfigError;
import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.adapters.format.ObjectOffsets;
import dev.iggysink.adapters.iggy.IggyGroupOffsets;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.service.Audit;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.settings.StreamSettings;
import dev.iggysink.domain.message.PartitionRef;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Compares what is in the bucket with the consumer group's committed offsets: covered ranges, gaps, overlaps and
 * objects whose content disagrees with their key. Reads offsets without joining the group, so it is safe to run next
 * to a live sink.
 */
@Command(name = "audit", mixinStandardHelpOptions = true,
        description = "Check the bucket against the committed offsets: coverage, gaps, overlaps. Exit 1 on a gap.")
final class AuditCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, required = true, description = "connector file or runtime config.toml")
    Path config;

    @Option(names = "--no-content", description = "trust keys; do not read objects to check their offsets")
    boolean noContent;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        ConfigResult result = ConnectorConfigLoader.load(config, System.getenv());
        if (!result.ok()) {
            for (ConfigError e : result.errors()) out.println("config error: " + e);
            out.flush();
            return ExitCodes.CONFIG;
        }
        boolean ok = true;
        int overlapping = 0;
        Map<String, Integer> unchecked = new TreeMap<>();
        for (SinkSettings s : result.sinks()) {
            try (ObjectStore store = SinkAssembly.store(s)) {
                for (StreamSettings stream : s.streams()) {
                    for (String topic : stream.topics()) {
                        try (IggyGroupOffsets offsets = new IggyGroupOffsets(s.iggy(), stream.stream(), topic,
                                stream.consumerGroup(), SinkAssembly.IGGY_CALL_TIMEOUT)) {
                            List<PartitionRef> partitions = offsets.partitions();
                            String prefix = Audit.listPrefix(s.output().prefix(), s.output().pathTemplate(),
                                    stream.stream(), topic);
                            List<Audit.PartitionAudit> audits = Audit.run(store, prefix, s.delivery().dlqPrefix(),
                                    partitions, p -> committed(offsets, p),
                                    noContent ? (k, c) -> Optional.empty() : (k, c) -> inside(k, c, unchecked));
                            for (Audit.PartitionAudit a : audits) {
                                ok &= a.ok();
                                overlapping += a.overlaps().size();
                                print(out, a);
                            }
                        }
                    }
                }
            }
        }
        unchecked.forEach((why, n) -> out.println("content not checked (key trusted) for " + n + " object(s): "
                + why));
        out.println(ok ? (overlapping == 0 ? "AUDIT OK: every committed offset is in exactly one object"
                : "AUDIT OK with " + overlapping + " overlapping object(s) (duplicates, nothing missing)")
                : "AUDIT FAILED: see gaps/mismatches above");
        out.flush();
        return ok ? ExitCodes.OK : ExitCodes.INCOMPLETE;
    }

    /** The offsets an object holds; one that cannot be read is counted under its reason and trusted by its key. */
    private static Optional<long[]> inside(String key, byte[] content, Map<String, Integer> unchecked) {
        ObjectOffsets.Result read = ObjectOffsets.read(key, content);
        if (read instanceof ObjectOffsets.Found f) return Optional.of(new long[] {f.first(), f.last()});
        unchecked.merge(((ObjectOffsets.CannotRead) read).reason(), 1, Integer::sum);
        return Optional.empty();
    }

    private static OptionalLong committed(IggyGroupOffsets offsets, PartitionRef p) {
        try {
            return offsets.committedOffset(p);
        } catch (Exception e) {
            throw new IllegalStateException("reading the committed offset of " + p + ": " + e.getMessage(), e);
        }
    }

    private static void print(PrintWriter out, Audit.PartitionAudit a) {
        out.printf("%s: committed=%d objects=%d covered=%s gaps=%s overlaps=%d mismatches=%d%n", a.partition(),
                a.committed(), a.objects(), a.covered(), a.gaps(), a.overlaps().size(), a.mismatches().size());
        a.overlaps().forEach(o -> out.println("  overlap: " + o));
        a.mismatches().forEach(m -> out.println("  mismatch: " + m));
    }
}
