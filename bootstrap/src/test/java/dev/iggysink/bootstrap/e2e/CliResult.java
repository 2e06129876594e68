package dev.iggysink.bootstrap.e2e;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A command run in-process as the jar would run it: its exit code and what it printed (out and err together). */
record CliResult(int code, String output) {
    /** Runs {@code command --config config more...}. */
    static CliResult run(String command, Path config, String... more) {
        StringWriter out = new StringWriter();
        var cl = dev.iggysink.bootstrap.TestAccess.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(out));
        List<String> args = new ArrayList<>(List.of(command, "--config", config.toString()));
        args.addAll(List.of(more));
        return new CliResult(cl.execute(args.toArray(String[]::new)), out.toString());
    }
}
