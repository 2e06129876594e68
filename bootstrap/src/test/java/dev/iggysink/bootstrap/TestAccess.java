package dev.iggysink.bootstrap;

import picocli.CommandLine;

/** Lets end-to-end tests run a command in-process, as the jar would. */
public final class TestAccess {
    private TestAccess() {
    }

    public static CommandLine commandLine() {
        return Main.commandLine();
    }
}
