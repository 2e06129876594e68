package dev.iggysink.application.service;

import java.time.Duration;
import java.util.Optional;

/**
 * How an upload ended. {@code bytes} is the size of the object (0 when it was never built); {@code fatal} when an
 * {@link Error} ended it, which stops the sink; {@code crc32c} the durable object's CRC32C when completeness
 * markers list it, else -1.
 */
record UploadResult(UploadJob job, Outcome outcome, Duration took, long bytes, Optional<String> error,
                    boolean fatal, long supersededUpTo, long crc32c) {

    UploadResult(UploadJob job, Outcome outcome, Duration took, long bytes, Optional<String> error, boolean fatal,
                 long supersededUpTo) {
        this(job, outcome, took, bytes, error, fatal, supersededUpTo, -1);
    }

    UploadResult(UploadJob job, Outcome outcome, Duration took, long bytes, Optional<String> error, boolean fatal) {
        this(job, outcome, took, bytes, error, fatal, -1);
    }

    enum Outcome {
        /** The store holds the object. */
        DURABLE,
        /** It can never succeed as it is (403, 400, a file that cannot be built): its partition halts. */
        REFUSED,
        /** The sink is stopping and stopped retrying; the records are read again on the next start. */
        GAVE_UP,
        /**
         * Not uploaded: another object of the partition starting at the same offset appeared since the partition was
         * assigned (its previous owner's upload landed late); it holds the records up to {@code supersededUpTo}.
         */
        SUPERSEDED
    }

    boolean durable() {
        return outcome == Outcome.DURABLE;
    }
}
