package dev.iggysink.bootstrap;

import dev.iggysink.adapters.config.ConfigError;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * What the commands that take a connector file or a runtime config share: picocli's spec of the command (its output
 * streams, which tests and {@code --help} use) and the {@code --config} option.
 */
abstract class ConfigFileCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = {"-c", "--config"}, required = true, description = "connector file or runtime config.toml")
    Path config;

    /** One {@code config error:} line per error of the file on {@code out}; the exit code for a bad file. */
    static int configErrors(PrintWriter out, List<ConfigError> errors) {
        for (ConfigError e : errors) out.println("config error: " + e);
        out.flush();
        return ExitCodes.CONFIG;
    }
}
