package dev.iggysink.bootstrap;

/** Process exit codes, documented in the README. */
final class ExitCodes {
    /** Everything read was made durable and committed; or the command succeeded. */
    static final int OK = 0;
    /** Stopped with data not yet durable (it will be read again), a halted partition, or an audit found a gap. */
    static final int INCOMPLETE = 1;
    /** The configuration is invalid, or the command line is wrong. */
    static final int CONFIG = 2;
    /** Iggy or the object store refused us at startup (credentials, missing bucket/stream/topic, unreachable). */
    static final int STARTUP = 3;

    private ExitCodes() {
    }
}
