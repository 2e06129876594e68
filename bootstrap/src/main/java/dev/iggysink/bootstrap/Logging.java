package dev.iggysink.bootstrap;

import org.slf4j.bridge.SLF4JBridgeHandler;

/** Routes java.util.logging (and so System.Logger of the domain and application) to SLF4J/Logback. */
final class Logging {
    private Logging() {
    }

    static void bridgeJul() {
        SLF4JBridgeHandler.removeHandlersForRootLogger();
        SLF4JBridgeHandler.install();
        // INFO, not finer: our own System.Logger goes to SLF4J directly; a finer JUL level would make libraries
        // logging through JUL format their debug output (an HTTP wire log, say) only for Logback to drop it.
        java.util.logging.Logger.getLogger("").setLevel(java.util.logging.Level.INFO);
    }
}
