package dev.iggysink.bootstrap;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The one jar's entry point: {@code run}, {@code validate}, {@code audit}, {@code redrive}, {@code maintain} (the demo
 * is its own jar, in demo/).
 */
@Command(name = "iggy-s3-sink", mixinStandardHelpOptions = true, versionProvider = Main.Version.class,
        description = "Reads Apache Iggy streams and writes them as files to S3 or an S3-compatible store.",
        subcommands = {RunCommand.class, ValidateCommand.class, AuditCommand.class, RedriveCommand.class,
                MaintainCommand.class,
                CommandLine.HelpCommand.class})
public final class Main implements java.util.concurrent.Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        OutOfMemoryExit.install();
        NettyDefaults.apply();
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
        cl.setParameterExceptionHandler(Main::badCommandLine);
        return cl;
    }

    /** No command: the usage on stderr and exit 2, as for any other wrong command line. */
    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        spec.commandLine().getErr().flush();
        return ExitCodes.CONFIG;
    }

    /** One line for a wrong command line (picocli's default adds the whole usage), then exit 2. */
    private static int badCommandLine(CommandLine.ParameterException e, String[] args) {
        CommandLine cl = e.getCommandLine();
        String message = e.getMessage();
        cl.getErr().println("error: " + message + " (see '" + cl.getCommandSpec().qualifiedName() + " --help')");
        cl.getErr().flush();
        return ExitCodes.CONFIG;
    }

    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Main.class.getPackage().getImplementationVersion();
            return new String[] {"iggy-s3-sink " + (v == null ? "dev" : v)};
        }
    }
}
