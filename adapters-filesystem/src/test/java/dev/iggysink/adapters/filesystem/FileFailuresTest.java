package dev.iggysink.adapters.filesystem;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.stream.Stream;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import dev.iggysink.application.port.out.StoreException;

/**
 * The classification on the exceptions the JDK throws on Linux, built as it builds them: a {@link FileSystemException}
 * whose reason is {@code strerror(errno)} for path operations, a plain {@link IOException} with that text for a failed
 * {@code write}. EIO, a stale NFS handle and a timeout cannot be provoked without special devices or a network mount,
 * so they are checked here only; permission denied and disk full are also provoked for real in
 * {@link DirectoryObjectStoreTest}.
 */
class FileFailuresTest {
    private static final String FILE = "/lake/a/.iggy-sink-tmp-1";

    static Stream<Arguments> failures() {
        return Stream.of(
                Arguments.of(new FileSystemException(FILE, null, "Input/output error"), true, 0, "Input/output error"),
                Arguments.of(new IOException("Input/output error"), true, 0, "Input/output error"),
                Arguments.of(new FileSystemException(FILE, null, "Stale file handle"), true, 0, "Stale file handle"),
                Arguments.of(new IOException("Connection timed out"), true, 0, "timed out"),
                Arguments.of(new FileSystemException(FILE, null, "Transport endpoint is not connected"), true, 0,
                        "retryable"),
                Arguments.of(new NoSuchFileException(FILE), true, 0, "No such file"),
                Arguments.of(new IOException("No space left on device"), true, 507, "disk full"),
                Arguments.of(new FileSystemException(FILE, null, "No space left on device"), true, 507, "disk full"),
                Arguments.of(new FileSystemException(FILE, null, "Disk quota exceeded"), true, 507, "disk full"),
                Arguments.of(new AccessDeniedException(FILE), false, 403, "permission denied"),
                Arguments.of(new FileSystemException(FILE, null, "Operation not permitted"), false, 403,
                        "permission denied"),
                Arguments.of(new FileSystemException(FILE, null, "Read-only file system"), false, 403,
                        "permission denied"),
                Arguments.of(new FileSystemException(FILE, null, "Not a directory"), false, 409, "conflicts"),
                Arguments.of(new FileSystemException(FILE, "/lake/dir", "Is a directory"), false, 409, "conflicts"),
                Arguments.of(new AtomicMoveNotSupportedException(FILE, "/lake/k", "Invalid cross-device link"), false,
                        0, "rename atomically"),
                Arguments.of(new FileSystemException(FILE, null, "File name too long"), false, 400,
                        "File name too long"));
    }

    @ParameterizedTest(name = "[{index}] {0}")
    @MethodSource("failures")
    void each_failure_is_classified_and_named(IOException thrown, boolean retryable, int status, String says) {
        StoreException e = FileFailures.classify("PUT", "a/k.jsonl", "/lake", thrown);

        assertThat(e.retryable()).as(e.getMessage()).isEqualTo(retryable);
        assertThat(e.httpStatus()).as(e.getMessage()).isEqualTo(status);
        assertThat(e.getMessage()).startsWith("PUT 'a/k.jsonl' in directory '/lake'").contains(says);
        assertThat(e.getCause()).isSameAs(thrown);
    }
}
