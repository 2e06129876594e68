package dev.iggysink.bootstrap;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * An OutOfMemoryError ends the process at once with exit 1 ({@link ExitCodes#INCOMPLETE}: what was read and is not
 * durable is read again on the next start), instead of limping on with a heap that cannot hold what it must, and
 * never with 3, which means "could not start". It comes here two ways:
 * <ul>
 *   <li>SIGUSR1, which the launcher's {@code -XX:OnOutOfMemoryError} has the JVM send itself at its first
 *   OutOfMemoryError, wherever it is thrown and whoever catches it (a library's event loop, an executor's future).
 *   The JVM's own {@code -XX:+ExitOnOutOfMemoryError} would end the process too, but always with exit 3.</li>
 *   <li>An OutOfMemoryError that reaches the top of a thread uncaught, also when the jar is run without the
 *   launcher.</li>
 * </ul>
 * The stop is {@link Runtime#halt}: no drain and no shutdown hook, which would need the memory there is not. Nothing
 * is lost: offsets are committed only after the objects holding them are durable.
 */
final class OutOfMemoryExit {
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(OutOfMemoryExit.class);
    /** What the launcher's {@code -XX:OnOutOfMemoryError} sends. */
    static final String SIGNAL = "USR1";
    private static final AtomicBoolean INSTALLED = new AtomicBoolean();

    private OutOfMemoryExit() {
    }

    static void install() {
        if (!INSTALLED.compareAndSet(false, true)) return;
        try {
            Signals.handle(SIGNAL, () -> halt("the JVM ran out of memory (SIG" + SIGNAL + " from the launcher's"
                    + " -XX:OnOutOfMemoryError)"));
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            LOG.debug("no handler for SIG{} on this JVM: {}", SIGNAL, e.toString());
        }
        Thread.setDefaultUncaughtExceptionHandler((thread, failure) -> {
            if (failure instanceof OutOfMemoryError) {
                halt("thread " + thread.getName() + ": " + failure);
            }
            LOG.error("uncaught exception in thread {}", thread.getName(), failure);
        });
    }

    /** One line, if there is memory left to write it, and exit 1 at once. */
    private static void halt(String why) {
        try {
            LOG.error("out of memory: stopping at once with exit 1 (what is not durable yet is read again from Iggy"
                    + " on the next start): {}", why);
        } catch (Throwable ignored) {
            // no memory even for the line: the exit code says it
        }
        Runtime.getRuntime().halt(ExitCodes.INCOMPLETE);
    }
}
