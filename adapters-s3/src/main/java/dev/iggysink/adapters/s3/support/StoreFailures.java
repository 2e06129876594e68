package dev.iggysink.adapters.s3.support;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;
import java.util.Set;

import dev.iggysink.application.port.out.StoreException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;

/**
 * Turns what a store answered into a {@link StoreException}, the same way for both adapters. Retryable: 408, 429,
 * 5xx and every transport failure (refused, reset, timeout: the request may or may not have landed, and a put is
 * idempotent, so trying again is safe), and credentials STS would not give for now (throttled or 5xx). Everything
 * else is final. Messages name the operation, bucket and key and
 * the store's error code; never a credential.
 */
public final class StoreFailures {
    private static final int MAX_SERVER_MESSAGE = 200;
    /** S3's and MinIO's codes for a body that does not match its x-amz-checksum-*, SHA-256 or Content-MD5. */
    private static final Set<String> DAMAGED_BODY = Set.of(
            "BadDigest", "XAmzContentChecksumMismatch", "XAmzContentSHA256Mismatch");

    private StoreFailures() {
    }

    public static boolean retryableStatus(int status) {
        return status == 408 || status == 429 || status >= 500;
    }

    /**
     * {@code Retry-After} as delta-seconds or an HTTP date (relative to {@code now}); empty when absent or
     * unreadable. A date in the past gives zero.
     */
    public static Optional<Duration> parseRetryAfter(String header, Instant now) {
        if (header == null || header.isBlank()) {
            return Optional.empty();
        }
        String value = header.strip();
        try {
            long seconds = Long.parseLong(value);
            return seconds < 0 ? Optional.empty() : Optional.of(Duration.ofSeconds(seconds));
        } catch (NumberFormatException notSeconds) {
            try {
                Instant at = ZonedDateTime.parse(value, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
                Duration wait = Duration.between(now, at);
                return Optional.of(wait.isNegative() ? Duration.ZERO : wait);
            } catch (DateTimeParseException notADate) {
                return Optional.empty();
            }
        }
    }

    /**
     * The store answered {@code status}. {@code errorCode} is the S3 error code (may be null, e.g. for HEAD),
     * {@code serverMessage} its message, {@code retryAfter} the raw header.
     */
    public static StoreException fromStatus(String operation, String bucket, String key, int status,
                                            String errorCode, String serverMessage, String retryAfter,
                                            Throwable cause) {
        String where = operation + " " + location(bucket, key);
        String code = errorCode == null || errorCode.isBlank() ? "" : " " + errorCode;
        String detail = serverMessage == null || serverMessage.isBlank() ? ""
                : ": " + truncate(serverMessage.strip());
        if ("NoSuchBucket".equals(errorCode)) {
            return new StoreException(where + " failed: bucket '" + bucket + "' does not exist (" + status + code
                    + "). The sink does not create buckets; create it first.", false, status, null, cause);
        }
        if (status == 403) {
            return new StoreException(where + " denied (403" + code + detail + "). Check the credentials and that"
                    + " they allow " + operation + " on this key.", false, status, null, cause);
        }
        if (errorCode != null && DAMAGED_BODY.contains(errorCode)) {
            // The body the store received does not match the checksum or hash sent with it: damaged on the way
            // (or changed while being read). A new request reads it again.
            return new StoreException(where + " failed (" + status + code + detail + "): the store received a body"
                    + " that does not match its checksum; retryable", true, status, null, cause);
        }
        if (retryableStatus(status)) {
            Duration wait = parseRetryAfter(retryAfter, Instant.now()).orElse(null);
            return new StoreException(where + " failed (" + status + code + detail + "); retryable"
                    + (wait == null ? "" : ", Retry-After " + wait.toSeconds() + " s"), true, status, wait, cause);
        }
        return new StoreException(where + " failed (" + status + code + detail + ")", false, status, null, cause);
    }

    /** The request got no answer: refused, reset, timed out. Always retryable; status 0. */
    public static StoreException transport(String operation, String bucket, String key, Throwable cause) {
        String what = isTimeout(cause) ? "timed out" : "got no answer from the store";
        return new StoreException(operation + " " + location(bucket, key) + " " + what + " (" + describe(cause)
                + "); retryable", true, 0, null, cause);
    }

    /** A failure on our side that no retry fixes (bad configuration, a bug): not retryable, status 0. */
    public static StoreException local(String operation, String bucket, String key, Throwable cause) {
        return new StoreException(operation + " " + location(bucket, key) + " failed before reaching the store ("
                + describe(cause) + ")", false, 0, null, cause);
    }

    /**
     * The store's answer could not be read from {@code cause} (no status): a transport failure when the cause chain
     * holds an I/O failure or a timeout, else a {@link #local} one.
     */
    public static StoreException withoutAnswer(String operation, String bucket, String key, Throwable cause) {
        Optional<AwsServiceException> sts = stsBusy(cause);
        if (sts.isPresent()) {
            // Credentials could not be had because STS is throttling or down: as a throttled store, tried again.
            AwsServiceException busy = sts.get();
            String code = busy.awsErrorDetails() == null ? "" : " " + busy.awsErrorDetails().errorCode();
            int status = busy.isThrottlingException() ? 429 : busy.statusCode();
            return new StoreException(operation + " " + location(bucket, key) + " failed: STS answered "
                    + busy.statusCode() + code + " when asked for credentials (" + describe(busy) + "); retryable",
                    true, status, null, cause);
        }
        return isTransport(cause) || isTimeout(cause) ? transport(operation, bucket, key, cause)
                : local(operation, bucket, key, cause);
    }

    /**
     * The answer of an AWS service in the cause chain of {@code t} that says it is throttling requests (429,
     * {@code Throttling}, {@code RequestLimitExceeded}, ...) or cannot serve them now (5xx): for credentials from
     * STS, a failure that passes.
     */
    public static Optional<AwsServiceException> stsBusy(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof AwsServiceException s && (s.isThrottlingException() || retryableStatus(s.statusCode()))) {
                return Optional.of(s);
            }
        }
        return Optional.empty();
    }

    /** True when the cause chain holds an I/O failure (the request did not get a complete answer). */
    public static boolean isTransport(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof IOException) {
                return true;
            }
        }
        return false;
    }

    public static String location(String bucket, String key) {
        return key == null ? "s3://" + bucket : "s3://" + bucket + "/" + key;
    }

    private static boolean isTimeout(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
            if (c instanceof SocketTimeoutException
                    || (c instanceof InterruptedIOException && !(c instanceof ConnectException))
                    || c.getClass().getSimpleName().contains("Timeout")) {
                return true;
            }
        }
        return false;
    }

    /** Class and message of the innermost cause: it names what failed without echoing request headers. */
    private static String describe(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        String message = root.getMessage();
        String outer = root == t ? "" : t.getClass().getSimpleName() + " <- ";
        return outer + root.getClass().getSimpleName() + (message == null ? "" : ": " + truncate(message));
    }

    private static String truncate(String s) {
        return s.length() <= MAX_SERVER_MESSAGE ? s : s.substring(0, MAX_SERVER_MESSAGE) + "...";
    }
}
