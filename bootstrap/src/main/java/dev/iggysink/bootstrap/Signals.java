package dev.iggysink.bootstrap;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandleProxies;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * SIGTERM, SIGINT and SIGHUP ask for a graceful stop instead of running shutdown hooks, so that the main thread can
 * finish the drain and choose the exit code (a shutdown hook cannot). SIGHUP too, because a closed terminal or a
 * supervisor sends it, and the JVM's default would end the process without a drain. Installed first thing in
 * {@code main}: a stop that arrives while the sink is still starting is remembered and honoured as soon as there is
 * something to stop. A second signal while a stop is under way means "do not wait any longer": the hurry listeners
 * end the wait for uploads, and what is not durable is reported and read again on the next start.
 */
final class Signals {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Signals.class);
    private static final AtomicBoolean REQUESTED = new AtomicBoolean();
    private static final List<Runnable> LISTENERS = new CopyOnWriteArrayList<>();
    private static final List<Runnable> HURRY = new CopyOnWriteArrayList<>();
    private static final AtomicBoolean INSTALLED = new AtomicBoolean();

    private Signals() {
    }

    static void install() {
        if (!INSTALLED.compareAndSet(false, true)) return;
        for (String name : new String[] {"TERM", "INT", "HUP"}) {
            try {
                handle(name);
            } catch (ReflectiveOperationException | IllegalArgumentException e) {
                // Signal not available on this platform: fall back to a hook (exit code then comes from the JVM).
                Runtime.getRuntime().addShutdownHook(new Thread(Signals::requestStop));
            }
        }
    }

    /**
     * {@code sun.misc.Signal.handle(new Signal(name), s -> signalled(name))}, looked up at run time. The JDK has no
     * public signal API, and javac 17 warns about every compile-time use of {@code jdk.unsupported} with no way to
     * suppress it, which would keep the build from failing on warnings. An unknown signal, one the JVM keeps for
     * itself, or a JDK without the class ends in the fallback of {@link #install}.
     */
    private static void handle(String name) throws ReflectiveOperationException {
        handle(name, () -> signalled(name));
    }

    /** As {@link #handle(String)}, running {@code action} on signal {@code name} (e.g. {@code USR1}). */
    static void handle(String name, Runnable action) throws ReflectiveOperationException {
        Class<?> signal = Class.forName("sun.misc.Signal");
        Class<?> handlerType = Class.forName("sun.misc.SignalHandler");
        MethodHandle run = MethodHandles.lookup()
                .findVirtual(Runnable.class, "run", MethodType.methodType(void.class)).bindTo(action);
        MethodHandle onSignal = MethodHandles.dropArguments(run, 0, signal);
        Object handler = MethodHandleProxies.asInterfaceInstance(handlerType, onSignal);
        signal.getMethod("handle", signal, handlerType)
                .invoke(null, signal.getConstructor(String.class).newInstance(name), handler);
    }

    private static void signalled(String name) {
        if (REQUESTED.get()) {
            LOG.warn("second stop signal (SIG{}): no more waiting for uploads; what is not durable is read again on"
                    + " the next start", name);
            HURRY.forEach(Runnable::run);
            return;
        }
        requestStop();
    }

    static void requestStop() {
        REQUESTED.set(true);
        LISTENERS.forEach(Runnable::run);
    }

    /** Runs {@code action} when a stop signal comes while a stop is already under way. */
    static void onHurry(Runnable action) {
        install();
        HURRY.add(action);
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
