package dev.iggysink.application.service;

import java.time.Duration;
import java.util.Optional;

/** How an upload ended: durable, or given up because the sink is stopping (never because of the store alone). */
record UploadResult(UploadJob job, boolean durable, Duration took, Optional<String> error) {
}
