package dev.iggysink.application.service;

import java.util.List;
import java.util.Optional;

/**
 * How a stop ended. {@code clean} only when everything read was made durable and committed and no error stopped
 * the sink; otherwise {@code problems} says what will be read again on the next start (nothing is lost either way).
 */
public record ShutdownReport(boolean clean, Optional<String> fatalError, List<String> problems) {
    public ShutdownReport {
        problems = List.copyOf(problems);
    }
}
