package dev.iggysink.bootstrap;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The one jar's entry point: {@code run}, {@code validate}, {@code audit} (the demo is its own jar, in demo/). */
@Command(name = "iggy-s3-sink", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Reads Apache Iggy streams and writes them as files to S3 or an S3-compatible store.",
        subcommands = {RunCommand.class, ValidateCommand.class, AuditCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        Signals.install();
        // Before anything logs: picocli parses --log-format only after the first lines would be written.
        LogFormat.fromArgs(args).ifPresent(LogFormat::apply);
        Logging.bridgeJul();
        int code = commandLine().execute(args);
        System.exit(code);
    }

    static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new Main());
        cl.setExitCodeExceptionMapper(e -> ExitCodes.CONFIG);
        return cl;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"iggy-s3-sink " + (v == null ? "dev" : v)};
        }
    }
}
