package dev.iggysink.bootstrap;

/** Process exit codes, documented in the README's Commands table and in every command's {@code --help}. */
final class ExitCodes {
    /** Everything read was made durable and committed (or nothing was read: stopped while starting); success. */
    static final int OK = 0;
    /**
     * Stopped with data not yet durable (it will be read again), a halted partition or a deleted topic, every topic
     * deleted while running (nothing left to consume), out of memory ({@link OutOfMemoryExit}), or an audit found a
     * gap.
     */
    static final int INCOMPLETE = 1;
    /** The configuration is invalid, or the command line is wrong. */
    static final int CONFIG = 2;
    /**
     * Could not start: Iggy, the object store or a table sink's catalog refused us (wrong credentials, missing
     * stream/topic/bucket, an Iggy server of another version), the admin port is taken, or (with
     * {@code --fail-fast}, and always for {@code audit}) Iggy, the store or the catalog did not answer.
     */
    static final int STARTUP = 3;

    /** For picocli's {@code exitCodeList}: the lines of {@code --help}'s "Exit codes:" section. */
    static final String RUN_HELP_0 = " 0:everything read became durable and was committed (or stopped while starting)";
    static final String RUN_HELP_1 = " 1:stopped with data not yet durable (read again on the next start), a"
            + " partition halted on a bad record or a topic deleted while running, every topic deleted (nothing"
            + " left to consume), or out of memory";
    static final String HELP_2 = " 2:bad configuration or command line";
    static final String RUN_HELP_2 = HELP_2 + ", or a table of a table sink it cannot write (missing without"
            + " create_tables, columns no record can fill) or a warehouse that refuses the probe write";
    static final String RUN_HELP_3 = " 3:could not start: admin port taken; Iggy refused the login (wrong password"
            + " or personal access token), none of the sink's streams and topics exists, or the server speaks"
            + " another Iggy version; the store refused the bucket check; a table sink's catalog refused our"
            + " credentials or cannot be opened; with --fail-fast also Iggy, the store or the catalog unreachable";
    static final String AUDIT_HELP_0 = " 0:no gap below the committed offsets";
    static final String AUDIT_HELP_1 = " 1:a gap or a mismatch";
    static final String AUDIT_HELP_3 = " 3:Iggy, the store or a table sink's catalog refused or did not answer (one"
            + " line says which)";

    static final String REDRIVE_HELP_0 = " 0:every dead letter taken was redriven (or there was none)";
    static final String REDRIVE_HELP_1 = " 1:some still fail (their dead letters carry the new error) or lie above the"
            + " group's committed offset";

    private ExitCodes() {
    }
}
