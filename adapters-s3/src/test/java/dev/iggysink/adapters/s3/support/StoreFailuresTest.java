package dev.iggysink.adapters.s3.support;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import dev.iggysink.application.port.out.StoreException;

class StoreFailuresTest {
    private static final Instant NOW = Instant.parse("2026-03-16T14:00:00Z");

    @ParameterizedTest(name = "{0} -> retryable {1}")
    @CsvSource({"408,true", "429,true", "500,true", "502,true", "503,true", "504,true",
            "400,false", "401,false", "403,false", "404,false", "409,false", "412,false"})
    void statuses_are_classified_as_the_seed_says(int status, boolean retryable) {
        StoreException e = StoreFailures.fromStatus("PUT", "b", "k", status, "Code", "msg", null, null);

        assertThat(e.retryable()).isEqualTo(retryable);
        assertThat(e.httpStatus()).isEqualTo(status);
        assertThat(e.getMessage()).startsWith("PUT s3://b/k").contains(String.valueOf(status));
    }

    @ParameterizedTest(name = "Retry-After: {0}")
    @CsvSource(delimiter = '|', value = {"7|PT7S", "0|PT0S", " 12 |PT12S", "Mon, 16 Mar 2026 14:00:30 GMT|PT30S",
            "Mon, 16 Mar 2026 13:00:00 GMT|PT0S"})
    void retry_after_is_read_as_seconds_or_an_http_date(String header, Duration expected) {
        assertThat(StoreFailures.parseRetryAfter(header, NOW)).contains(expected);
    }

    @ParameterizedTest(name = "Retry-After: [{0}]")
    @CsvSource(delimiter = '|', value = {"soon", "-5", "''"})
    void an_unreadable_retry_after_is_ignored(String header) {
        assertThat(StoreFailures.parseRetryAfter(header, NOW)).isEmpty();
        assertThat(StoreFailures.parseRetryAfter(null, NOW)).isEmpty();
    }

    @Test
    void a_retryable_status_carries_retry_after_and_a_final_one_does_not() {
        assertThat(StoreFailures.fromStatus("PUT", "b", "k", 429, "SlowDown", null, "3", null).retryAfter())
                .contains(Duration.ofSeconds(3));
        assertThat(StoreFailures.fromStatus("PUT", "b", "k", 400, "Bad", null, "3", null).retryAfter()).isEmpty();
    }

    @ParameterizedTest(name = "400 {0} -> retryable")
    @CsvSource({"BadDigest", "XAmzContentChecksumMismatch", "XAmzContentSHA256Mismatch"})
    void a_body_that_arrived_damaged_is_retryable_though_its_status_is_400(String code) {
        StoreException e = StoreFailures.fromStatus("PUT", "b", "k", 400, code, "mismatch", null, null);

        assertThat(e.retryable()).isTrue();
        assertThat(e.httpStatus()).isEqualTo(400);
        assertThat(e.getMessage()).contains(code).contains("does not match its checksum");
        assertThat(StoreFailures.fromStatus("PUT", "b", "k", 400, "InvalidDigest", null, null, null).retryable())
                .as("a malformed Content-MD5 is ours to fix, not the network's").isFalse();
    }

    @Test
    void a_missing_bucket_names_it_and_says_the_sink_does_not_create_buckets() {
        StoreException e = StoreFailures.fromStatus("PUT", "lake", "a/b", 404, "NoSuchBucket", "x", null, null);

        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).contains("'lake'").contains("does not create buckets");
    }

    @Test
    void a_403_names_operation_and_key() {
        StoreException e = StoreFailures.fromStatus("UPLOAD PART 2", "lake", "a/b", 403, "AccessDenied",
                "Access Denied.", null, null);

        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).contains("UPLOAD PART 2 s3://lake/a/b").contains("AccessDenied");
    }

    @Test
    void transport_failures_are_retryable_with_no_status_and_timeouts_say_so() {
        StoreException refused = StoreFailures.transport("PUT", "b", "k", new ConnectException("Connection refused"));
        StoreException timeout = StoreFailures.transport("PUT", "b", "k",
                new IOException("wrapped", new SocketTimeoutException("Read timed out")));

        assertThat(refused.retryable()).isTrue();
        assertThat(refused.httpStatus()).isZero();
        assertThat(refused.getMessage()).contains("no answer").contains("Connection refused");
        assertThat(timeout.getMessage()).contains("timed out");
        assertThat(StoreFailures.isTransport(new RuntimeException(new IOException("x")))).isTrue();
        assertThat(StoreFailures.isTransport(new RuntimeException("x"))).isFalse();
    }

    @Test
    void a_failure_without_an_answer_is_transport_when_io_or_a_timeout_else_local() {
        StoreException io = StoreFailures.withoutAnswer("GET", "b", "k", new RuntimeException(new IOException("x")));
        StoreException timeout = StoreFailures.withoutAnswer("GET", "b", "k", new ApiCallAttemptTimeoutException());
        StoreException local = StoreFailures.withoutAnswer("GET", "b", "k", new IllegalStateException("no signer"));

        assertThat(io.retryable()).isTrue();
        assertThat(timeout.retryable()).isTrue();
        assertThat(timeout.getMessage()).contains("timed out");
        assertThat(local.retryable()).isFalse();
        assertThat(local.getMessage()).contains("failed before reaching the store").contains("no signer");
    }

    /** Named as the AWS SDK's attempt timeout, which is not an IOException. */
    private static final class ApiCallAttemptTimeoutException extends RuntimeException {
        private static final long serialVersionUID = 1L;
    }
}
