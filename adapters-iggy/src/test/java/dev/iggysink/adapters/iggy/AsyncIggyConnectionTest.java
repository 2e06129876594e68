package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.Secret;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AsyncIggyConnectionTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    @Test
    void a_ca_file_that_is_no_certificate_is_a_tls_error_that_is_not_retried(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "not a certificate");
        IggySettings settings = new IggySettings("127.0.0.1", 1, "sink", Secret.of("pw"), Optional.empty(), true,
                Optional.of(ca.toString()), Optional.empty());

        SourceException e = catchThrowableOfType(SourceException.class,
                () -> new IggyGroupOffsets(settings, "s", "t", "g", TIMEOUT).close());

        assertThat(e).isNotNull();
        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).startsWith("TLS setup for Iggy at 127.0.0.1:1 failed")
                .contains("does not contain valid certificates");
    }

    @Test
    void the_source_does_not_retry_a_ca_file_that_is_no_certificate(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.pem"), "not a certificate");
        IggySettings settings = new IggySettings("127.0.0.1", 1, "sink", Secret.of("pw"), Optional.empty(), true,
                Optional.of(ca.toString()), Optional.empty());

        try (IggyMessageSource source = new IggyMessageSource(settings, "s", "t", "g", TIMEOUT)) {
            SourceException e = catchThrowableOfType(SourceException.class, source::connect);

            assertThat(e).isNotNull();
            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).startsWith("TLS setup for Iggy at 127.0.0.1:1 failed");
        }
    }
}
