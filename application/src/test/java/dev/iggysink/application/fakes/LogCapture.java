package dev.iggysink.application.fakes;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

/**
 * The messages a class logs while this is open (the core logs through {@link System.Logger}, which is
 * {@code java.util.logging} in these tests). Closing it detaches it; what it caught stays readable.
 */
public final class LogCapture extends Handler implements AutoCloseable {
    /** Held: the logging framework keeps only weak references to its loggers, and a new one has no handler. */
    private final Logger logger;
    private final List<String> messages = new CopyOnWriteArrayList<>();

    private LogCapture(Logger logger) {
        this.logger = logger;
    }

    /** Starts catching what {@code source} logs. */
    public static LogCapture of(Class<?> source) {
        LogCapture capture = new LogCapture(Logger.getLogger(source.getName()));
        capture.logger.addHandler(capture);
        return capture;
    }

    /** The messages caught so far, unformatted, in order. */
    public List<String> messages() {
        return List.copyOf(messages);
    }

    @Override
    public void publish(LogRecord r) {
        messages.add(r.getMessage());
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
        logger.removeHandler(this);
    }
}
