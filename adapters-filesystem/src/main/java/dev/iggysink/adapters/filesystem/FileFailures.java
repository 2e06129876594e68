package dev.iggysink.adapters.filesystem;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

import dev.iggysink.application.port.out.StoreException;

/**
 * Turns an {@link IOException} of the file API into a {@link StoreException}, classified like the S3 adapters' failures
 * and carrying the HTTP status an object store would have answered, so metrics and health read the same for both:
 *
 * <ul>
 *   <li><b>Permission denied</b> (EACCES, EPERM, a read-only file system): 403, not retryable. Nobody fixes it but an
 *       operator, as with wrong credentials.</li>
 *   <li><b>Missing root, or a root that is not a directory</b>: 404, not retryable, like a missing bucket. The sink
 *       never creates the root: on a volume that is not mounted it would write to the disk beneath the mount point.
 *   </li>
 *   <li><b>Disk full</b> (ENOSPC, EDQUOT): 507 (Insufficient Storage), <em>retryable</em> with a message that says
 *       "disk full". Space comes back (old files are moved away, a quota is raised) without restarting the sink, and
 *       the put is idempotent; meanwhile the retries show as a degraded store in the sink's health, not as files
 *       refused for good. The temp file is removed, so a failed put does not hold space.</li>
 *   <li><b>Key conflicts</b> (a file where a key needs a directory, or the reverse): 409, not retryable.</li>
 *   <li><b>Everything else</b> (EIO, a stale NFS handle, a timeout, a Fuse daemon that went away): status 0 as for a
 *       transport failure, retryable. The put may be tried again safely: nothing is visible under the key until the
 *       rename.</li>
 * </ul>
 *
 * <p>The JDK reports most of these as a {@link FileSystemException} whose reason is the C library's {@code strerror}
 * text, and a failed {@code write} as a plain {@link IOException} with that text; both are matched on it.
 * Messages name the operation, the key and the directory; the directory path is configuration, not a secret.
 */
final class FileFailures {
    static final int DENIED = 403;
    static final int NOT_FOUND = 404;
    static final int CONFLICT = 409;
    static final int INSUFFICIENT_STORAGE = 507;
    static final int BAD_KEY = 400;

    private FileFailures() {
    }

    static StoreException classify(String operation, String key, String directory, IOException e) {
        String where = operation + " '" + key + "' in directory '" + directory + "'";
        String reason = reason(e);
        String lower = reason.toLowerCase(Locale.ROOT);
        if (lower.contains("no space left on device") || lower.contains("disk quota exceeded")) {
            return new StoreException(where + " failed: disk full (" + reason + "); retryable once space is freed",
                    true, INSUFFICIENT_STORAGE, null, e);
        }
        if (e instanceof AccessDeniedException || lower.contains("permission denied")
                || lower.contains("operation not permitted") || lower.contains("read-only file system")) {
            return new StoreException(where + " denied: permission denied (" + reason + "). Check that the sink's"
                    + " user may write there and that the volume is mounted read-write.", false, DENIED, null, e);
        }
        if (e instanceof FileAlreadyExistsException || e instanceof DirectoryNotEmptyException
                || e instanceof NotDirectoryException
                || lower.contains("not a directory") || lower.contains("is a directory")) {
            return new StoreException(where + " failed: the key conflicts with an existing file or directory ("
                    + reason + ")", false, CONFLICT, null, e);
        }
        if (e instanceof AtomicMoveNotSupportedException) {
            return new StoreException(where + " failed: this file system cannot rename atomically (" + reason
                    + "); the sink needs an atomic rename within a directory", false, 0, null, e);
        }
        if (lower.contains("file name too long")) {
            return new StoreException(where + " failed: " + reason, false, BAD_KEY, null, e);
        }
        return new StoreException(where + " failed (" + reason + "); retryable", true, 0, null, e);
    }

    /** The root is gone or is no directory: final, like a missing bucket. */
    static StoreException missingRoot(String operation, String key, String directory, String what, Throwable cause) {
        return new StoreException(operation + " '" + key + "' failed: directory '" + directory + "' " + what
                + ". The sink does not create its root directory; create it (or mount the volume) first.",
                false, NOT_FOUND, null, cause);
    }

    static StoreException notFound(String operation, String key, String directory, Throwable cause) {
        return new StoreException(operation + " '" + key + "' in directory '" + directory + "': no such object",
                false, NOT_FOUND, null, cause);
    }

    static StoreException badKey(String operation, String key, String why) {
        return new StoreException(operation + " refused key '" + printable(key) + "': " + why, false, BAD_KEY, null,
                null);
    }

    static StoreException badMetadata(String operation, String key, String why) {
        return new StoreException(operation + " '" + printable(key) + "' refused: user metadata " + why, false,
                BAD_KEY, null, null);
    }

    /** The errno text without the path the JDK puts in front of it (the message names the key already). */
    private static String reason(IOException e) {
        if (e instanceof FileSystemException f) {
            if (f.getReason() != null) return f.getReason();
            if (e instanceof AccessDeniedException) return "Permission denied";
            if (e instanceof NoSuchFileException) return "No such file or directory";
            if (e instanceof FileAlreadyExistsException) return "File exists";
            return e.getClass().getSimpleName();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /** A NUL or other control character is shown escaped, so the one-line message stays one line. */
    static String printable(String key) {
        StringBuilder b = new StringBuilder(key.length());
        key.codePoints().forEach(c -> {
            if (Character.isISOControl(c)) b.append(String.format("\\u%04x", c));
            else b.appendCodePoint(c);
        });
        return b.toString();
    }
}
