package dev.iggysink.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class SourceExceptionTest {
    @Test
    void it_ran_out_of_memory_where_an_out_of_memory_error_is_among_its_causes() {
        // Netty's OutOfDirectMemoryError is an OutOfMemoryError, as the client hands it on, possibly wrapped
        assertThat(new SourceException("poll failed", true, new IllegalStateException("decoding",
                new OutOfMemoryError("failed to allocate 335551214 byte(s) of direct memory"))).outOfMemory())
                .isTrue();
        assertThat(new SourceException("poll failed", true, new OutOfMemoryError("Java heap space")).outOfMemory())
                .isTrue();
    }

    @Test
    void other_failures_did_not() {
        assertThat(new SourceException("connection reset", true, new IOException("reset")).outOfMemory()).isFalse();
        assertThat(new SourceException("no answer", true).outOfMemory()).isFalse();
    }
}
