package dev.iggysink.bootstrap;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import sun.misc.Signal;

/**
 * SIGTERM and SIGINT ask for a graceful stop instead of running shutdown hooks, so that the main thread can finish
 * the drain and choose the exit code (a shutdown hook cannot). Installed first thing in {@code main}: a stop that
 * arrives while the sink is still starting is remembered and honoured as soon as there is something to stop.
 */
final class Signals {
    private static final AtomicBoolean REQUESTED = new AtomicBoolean();
    private static final List<Runnable> LISTENERS = new CopyOnWriteArrayList<>();
    private static final AtomicBoolean INSTALLED = new AtomicBoolean();

    private Signals() {
    }

    static void install() {
        if (!INSTALLED.compareAndSet(false, true)) return;
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal.handle(new Signal(name), s -> requestStop());
            } catch (IllegalArgumentException e) {
                // Signal not available on this platform: fall back to a hook (exit code then comes from the JVM).
                Runtime.getRuntime().addShutdownHook(new Thread(Signals::requestStop));
            }
        }
    }

    static void requestStop() {
        REQUESTED.set(true);
        LISTENERS.forEach(Runnable::run);
    }

    static boolean stopRequested() {
        return REQUESTED.get();
    }

    /** Runs {@code action} on a stop request; at once when one already came. */
    static void onStop(Runnable action) {
        install();
        LISTENERS.add(action);
        if (REQUESTED.get()) action.run();
    }
}
