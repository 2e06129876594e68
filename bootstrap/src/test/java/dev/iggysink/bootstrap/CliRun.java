package dev.iggysink.bootstrap;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;

/** A command run in-process, as the jar would run it: its exit code and what it printed. */
record CliRun(int code, String out, String err) {
    static CliRun execute(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Main.commandLine();
        cli.setOut(new PrintWriter(out));
        cli.setErr(new PrintWriter(err));
        int code = cli.execute(args);
        return new CliRun(code, out.toString(), err.toString());
    }
}
