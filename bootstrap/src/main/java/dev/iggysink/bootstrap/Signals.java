package dev.iggysink.bootstrap;

import sun.misc.Signal;

/**
 * SIGTERM and SIGINT ask for a graceful stop instead of running shutdown hooks, so that the main thread can finish
 * the drain and choose the exit code (a shutdown hook cannot).
 */
final class Signals {
    private Signals() {
    }

    static void onStop(Runnable action) {
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal.handle(new Signal(name), s -> action.run());
            } catch (IllegalArgumentException e) {
                // Signal not available on this platform: fall back to a hook (exit code then comes from the JVM).
                Runtime.getRuntime().addShutdownHook(new Thread(action));
            }
        }
    }
}
