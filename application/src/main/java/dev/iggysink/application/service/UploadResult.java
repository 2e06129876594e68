package dev.iggysink.application.service;

import java.time.Duration;
import java.util.Optional;

/**
 * How an upload ended: durable, or given up because the sink is stopping (never because of the store alone).
 * {@code bytes} is the size of the object (0 when it was never built).
 */
record UploadResult(UploadJob job, boolean durable, Duration took, long bytes, Optional<String> error) {
}
