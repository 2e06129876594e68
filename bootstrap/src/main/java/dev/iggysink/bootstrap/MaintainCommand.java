package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.adapters.iceberg.CatalogSettings;
import dev.iggysink.adapters.iceberg.IcebergTables;
import dev.iggysink.adapters.iceberg.TableChecks;
import dev.iggysink.adapters.iceberg.TableUpkeep;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.settings.StreamSettings;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Upkeep of the tables of an Iceberg table sink, safe beside the running sink ({@link TableUpkeep}): compaction of
 * its small data files, expiry of old snapshots (never of the one holding the offset map), deletion of orphan data
 * files. One line per table and step.
 */
@Command(name = "maintain", mixinStandardHelpOptions = true,
        description = "Iceberg table sink: compact small data files, expire old snapshots, delete orphan data files.",
        exitCodeListHeading = "%nExit codes:%n",
        exitCodeList = {MaintainCommand.HELP_0, MaintainCommand.HELP_1, ExitCodes.HELP_2, MaintainCommand.HELP_3})
final class MaintainCommand implements Callable<Integer> {
    static final String HELP_0 = " 0:every step done (or, with --dry-run, reported)";
    static final String HELP_1 = " 1:a compaction gave up (another writer changed its files); run it again";
    static final String HELP_3 = " 3:the catalog or the warehouse refused or did not answer (one line says which)";

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, required = true, description = "the table sink's connector file")
    Path config;

    @Option(names = "--table", description = "only this table (repeatable); default: the file's tables, or under"
            + " dynamic routing the tables whose offset map names its topics")
    List<String> tables = new ArrayList<>();

    @Option(names = "--target-file-size", defaultValue = "128MiB", converter = SizeConverter.class,
            description = "compact data files below this size into files of about this size (default ${DEFAULT-VALUE})")
    long targetFileSize;

    @Option(names = "--expire-older-than", defaultValue = "5d", converter = DurationConverter.class,
            description = "expire snapshots older than this (default ${DEFAULT-VALUE})")
    Duration expireOlderThan;

    @Option(names = "--retain-last", defaultValue = "1", description = "keep at least this many snapshots"
            + " (default ${DEFAULT-VALUE}; the ones back to the offset map's are always kept)")
    int retainLast;

    @Option(names = "--orphans-older-than", defaultValue = "3d", converter = DurationConverter.class,
            description = "delete orphan data files older than this (default ${DEFAULT-VALUE}); it must outlast the"
                    + " longest a running sink's data file waits for its commit")
    Duration orphansOlderThan;

    @Option(names = "--dry-run", description = "change nothing; say what would be done")
    boolean dryRun;

    @Option(names = "--no-compact", description = "skip the compaction")
    boolean noCompact;

    @Option(names = "--no-expire", description = "skip the expiry of snapshots")
    boolean noExpire;

    @Option(names = "--no-orphans", description = "skip the deletion of orphan files")
    boolean noOrphans;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        TableConnectorReader.Result result = TableConnectorReader.load(config, System.getenv());
        if (result.connector().isEmpty()) {
            if (result.errors().isEmpty()) out.println("config error: " + config + " is not an Iceberg table sink");
            return ConfigFileCommand.configErrors(out, result.errors());
        }
        if (retainLast < 1) {
            out.println("config error: --retain-last must be at least 1 (the current snapshot), was " + retainLast);
            out.flush();
            return ExitCodes.CONFIG;
        }
        TableConnectorConfig c = result.connector().get();
        CatalogSettings catalog = TableSinkRunner.catalog(c.catalog());
        int code = ExitCodes.OK;
        try (TableUpkeep.Tables upkeep = TableUpkeep.open(catalog)) {
            for (String name : tables(c, catalog)) {
                TableUpkeep table = upkeep.table(name);
                // compaction first: what it replaces then leaves with the snapshots expiry removes later
                if (!noCompact) {
                    TableUpkeep.Compaction done = table.compact(targetFileSize, dryRun);
                    out.println(name + ": " + done.line());
                    if (done.outcome().startsWith("gave up")) code = ExitCodes.INCOMPLETE;
                }
                if (!noExpire) {
                    out.println(name + ": " + table.expire(Instant.now().minus(expireOlderThan), retainLast, dryRun)
                            .line());
                }
                if (!noOrphans) {
                    out.println(name + ": " + table.deleteOrphans(Instant.now().minus(orphansOlderThan), dryRun)
                            .line());
                }
                out.flush();
            }
        } catch (StoreException | RuntimeException e) {
            out.flush();
            err.println("maintain failed: the catalog at " + TableChecks.where(catalog) + ": " + e.getMessage());
            err.flush();
            return ExitCodes.STARTUP;
        }
        return code;
    }

    /** The tables named on the command line, else the file's, else (dynamic routing) those holding its topics. */
    private List<String> tables(TableConnectorConfig c, CatalogSettings catalog) throws StoreException {
        if (!tables.isEmpty()) return tables;
        if (c.table().routing().routeField().isEmpty()) return c.table().routing().tables();
        Set<String> out = new LinkedHashSet<>();
        for (StreamSettings stream : c.streams()) {
            try (IcebergTables store = IcebergTables.open(catalog, stream.consumerGroup(), Optional.empty())) {
                for (String topic : stream.topics()) out.addAll(store.tablesHolding(stream.stream(), topic));
            }
        }
        return List.copyOf(out);
    }

    /** A size: bytes, or a number with KiB, MiB or GiB. */
    static final class SizeConverter implements CommandLine.ITypeConverter<Long> {
        @Override
        public Long convert(String value) {
            String v = value.strip().toLowerCase(Locale.ROOT);
            long unit = 1;
            for (String[] u : new String[][] {{"kib", "1024"}, {"mib", "1048576"}, {"gib", "1073741824"}}) {
                if (v.endsWith(u[0])) {
                    unit = Long.parseLong(u[1]);
                    v = v.substring(0, v.length() - u[0].length()).strip();
                    break;
                }
            }
            try {
                long n = Long.parseLong(v);
                if (n > 0) return n * unit;
            } catch (NumberFormatException e) {
                // said below
            }
            throw new CommandLine.TypeConversionException("'" + value + "' is not a size (write it like 128MiB,"
                    + " 512KiB or a number of bytes)");
        }
    }
}
