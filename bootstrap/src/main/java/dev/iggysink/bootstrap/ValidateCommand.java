package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.CatalogConfig;
import dev.iggysink.adapters.config.ConnectorConfig;
import dev.iggysink.adapters.config.ConfigError;
import dev.iggysink.adapters.config.ConfigResult;
import dev.iggysink.adapters.config.ConnectorConfigLoader;
import dev.iggysink.adapters.config.SettingsPrinter;
import dev.iggysink.adapters.config.TableConnectorConfig;
import dev.iggysink.adapters.config.TableConnectorReader;
import dev.iggysink.adapters.iceberg.TableChecks;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Checks a connector file (or runtime config) and prints every problem at once; touches neither Iggy nor S3. For an
 * Iceberg table sink it also asks the catalog, unless {@code --offline}: see {@link TableChecks}.
 */
@Command(name = "validate", mixinStandardHelpOptions = true,
        description = "Check a connector or runtime config file; print OK or every error. For an Iceberg table sink"
                + " also check the catalog, its tables and the warehouse (no table is changed). Exit 0, 2 or 3.",
        exitCodeListHeading = "%nExit codes:%n", exitCodeList = {" 0:the configuration is valid", ExitCodes.HELP_2
                + ", or a table the sink cannot write", " 3:the catalog or the warehouse's store did not"
                + " answer, or the catalog refused our credentials"})
final class ValidateCommand extends ConfigFileCommand {
    @Option(names = "--print", description = "also print the effective configuration (secrets redacted)")
    boolean print;

    @Option(names = "--offline", description = "table sinks: check the file only, do not contact the catalog")
    boolean offline;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if (TableConnectorReader.isTableSink(config)) {
            TableConnectorReader.Result table = TableConnectorReader.load(config, System.getenv());
            table.warnings().forEach(w -> err.println("warning: " + w));
            if (table.connector().isEmpty()) {
                java.util.List<String> errors = TableSinkRunner.fileErrors(table);
                err.println(config + ": " + errors.size() + " error(s):");
                for (String e : errors) err.println("  " + e);
                err.flush();
                return ExitCodes.CONFIG;
            }
            TableConnectorConfig t = table.connector().get();
            java.util.List<String> template = TableSinkRunner.template(t).map(x -> x.problems())
                    .orElse(java.util.List.of());
            if (!template.isEmpty()) {
                err.println(config + ": " + template.size() + " error(s):");
                for (String e : template) err.println("  plugin_config." + e);
                err.flush();
                return ExitCodes.CONFIG;
            }
            if (!offline) {
                TableChecks.Report report = TableChecks.check(TableSinkRunner.catalog(t.catalog()),
                        t.table().routing().tables(), TableSinkRunner.template(t));
                report.warnings().forEach(w -> err.println("warning: plugin_config." + w));
                if (!report.ok()) {
                    err.println(config + ": " + report.problems().size() + " error(s):");
                    for (String e : report.problems()) err.println("  plugin_config." + e);
                    err.flush();
                    return exitCode(report);
                }
            }
            out.println("OK: Iceberg table sink " + t.key() + " (" + t.name() + ") -> " + catalogText(t.catalog(), offline)
                    + ", tables " + (t.table().routing().routeField().isPresent()
                    ? "named by field " + t.table().routing().routeField().get() : t.table().routing().tables())
                    + (offline ? " (the catalog was not asked: --offline)" : ""));
            if (print) out.println(SettingsPrinter.redacted(t));
            out.flush();
            return ExitCodes.OK;
        }
        ConfigResult result = ConnectorConfigLoader.load(config, System.getenv());
        result.notices().forEach(n -> out.println("note: " + n));
        result.warnings().forEach(w -> err.println("warning: " + w));
        if (!result.ok()) {
            err.println(config + ": " + result.errors().size() + " error(s):");
            for (ConfigError e : result.errors()) err.println("  " + e);
            err.flush();
            return ExitCodes.CONFIG;
        }
        // The table sinks of a connector directory: what the file alone cannot tell, for all of them at once.
        java.util.List<String> problems = new java.util.ArrayList<>();
        int code = ExitCodes.OK;
        for (TableConnectorConfig t : result.tableSinks()) {
            TableCheck check = checkTable(t, offline);
            check.warnings().forEach(w -> err.println("warning: sink " + t.key() + ": plugin_config." + w));
            check.problems().forEach(p -> problems.add("sink " + t.key() + ": plugin_config." + p));
            code = Math.max(code, check.code());
        }
        if (!problems.isEmpty()) {
            err.println(config + ": " + problems.size() + " error(s):");
            for (String p : problems) err.println("  " + p);
            err.flush();
            return code;
        }
        out.println("OK: " + (result.sinks().size() + result.tableSinks().size()) + " sink(s) in " + config);
        for (ConnectorConfig s : result.sinks()) {
            String prefix = s.sink().output().prefix();
            out.println("  " + s.key() + " (" + s.sink().name() + ") -> " + s.storage().describe()
                    + (prefix.isEmpty() ? "" : "/" + prefix));
            if (print) out.println(SettingsPrinter.redacted(s));
        }
        for (TableConnectorConfig t : result.tableSinks()) {
            out.println("  " + t.key() + " (" + t.name() + ") -> Iceberg table sink, " + catalogText(t.catalog(), offline)
                    + ", tables " + (t.table().routing().routeField().isPresent()
                    ? "named by field " + t.table().routing().routeField().get() : t.table().routing().tables())
                    + (offline ? " (the catalog was not asked: --offline)" : ""));
            if (print) out.println(SettingsPrinter.redacted(t));
        }
        out.flush();
        return ExitCodes.OK;
    }

    /**
     * The catalog as the OK line names it; for a catalog on AWS also how it was reached, so that the line says what
     * was checked: Glue's region and credentials (Glue listed its databases), or the SigV4 service and region a REST
     * catalog took the signatures for.
     */
    static String catalogText(CatalogConfig c, boolean offline) {
        String credentials = c.storeAccessKeyId().isPresent() ? "store_access_key_id" : "the AWS credential chain";
        String region = c.aws().region().or(c::storeRegion).orElse("the AWS region chain's region");
        if (c.type().equals("glue")) {
            return "glue catalog " + (c.uri().isEmpty() ? "AWS Glue" : c.uri()) + " (region " + region + ", "
                    + credentials + (offline ? "" : "; Glue listed its databases") + ")";
        }
        String text = c.type() + " catalog " + c.uri();
        if (!c.aws().sigv4()) return text;
        return text + " (SigV4 for " + c.aws().signingName().orElse("execute-api") + " in " + region + ", "
                + credentials + (offline ? "" : "; the catalog took the signatures") + ")";
    }

    /** What the checks beyond the file found for one table sink, and the exit code they mean. */
    record TableCheck(java.util.List<String> problems, java.util.List<String> warnings, int code) {
    }

    /**
     * The {@code create_tables} template, then (unless {@code offline}) the catalog, as for a single table sink
     * file: a catalog that did not answer exits 3, anything else it refused 2.
     */
    static TableCheck checkTable(TableConnectorConfig t, boolean offline) {
        java.util.List<String> template = TableSinkRunner.template(t).map(x -> x.problems())
                .orElse(java.util.List.of());
        if (!template.isEmpty()) return new TableCheck(template, java.util.List.of(), ExitCodes.CONFIG);
        if (offline) return new TableCheck(java.util.List.of(), java.util.List.of(), ExitCodes.OK);
        TableChecks.Report report = TableChecks.check(TableSinkRunner.catalog(t.catalog()),
                t.table().routing().tables(), TableSinkRunner.template(t));
        return new TableCheck(report.problems(), report.warnings(), report.ok() ? ExitCodes.OK : exitCode(report));
    }

    /**
     * As {@code run}'s start: a catalog, or a warehouse store, that did not answer (only that) is a service down,
     * exit 3; anything the catalog or store refused is the configuration's, exit 2.
     */
    private static int exitCode(TableChecks.Report report) {
        return report.reached() && !report.unanswered() ? ExitCodes.CONFIG : ExitCodes.STARTUP;
    }
}
