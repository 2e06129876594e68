package dev.iggysink.adapters.filesystem;

import static org.assertj.core.api.Assertions.fail;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Real failures for the tests, made with the operating system's own means. Permission checks do not apply to root,
 * so a directory root may not write to is an immutable one ({@code chattr +i}) or a read-only bind mount; others get
 * a plain {@code chmod}.
 */
final class Provoke {
    private Provoke() {
    }

    /** Something to undo after the test, so the temp directory can be removed. */
    interface Undo extends AutoCloseable {
        @Override
        void close() throws IOException;
    }

    @FunctionalInterface
    interface ThrowingCall {
        void run() throws Exception;
    }

    /** Makes {@code dir} unwritable for this process, by whichever means works for its user. */
    static Undo denyWrites(Path dir) throws IOException, InterruptedException {
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("r-xr-xr-x"));
        Undo chmod = () -> Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        if (!writable(dir)) return chmod;
        chmod.close();
        if (run("chattr", "+i", dir.toString()) && !writable(dir)) {
            return undoBy("chattr", "-i", dir.toString());
        }
        if (run("mount", "--bind", dir.toString(), dir.toString())
                && run("mount", "-o", "remount,bind,ro", dir.toString()) && !writable(dir)) {
            return undoBy("umount", dir.toString());
        }
        return fail("cannot make %s unwritable here: chmod, chattr +i and a read-only bind mount all failed", dir);
    }

    /** Mounts a tmpfs of {@code size} (e.g. {@code 64k}) on {@code dir}; null when mounting is not allowed here. */
    static Undo tinyDisk(Path dir, String size) throws IOException, InterruptedException {
        if (!run("mount", "-t", "tmpfs", "-o", "size=" + size, "tmpfs", dir.toString())) return null;
        return undoBy("umount", dir.toString());
    }

    /** An undo that runs {@code command}; an interrupt while waiting for it stays set and ends the undo. */
    private static Undo undoBy(String... command) {
        return () -> {
            try {
                run(command);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new InterruptedIOException("interrupted while running " + String.join(" ", command));
            }
        };
    }

    private static boolean writable(Path dir) throws IOException {
        Path probe = dir.resolve("provoke-probe");
        try {
            Files.writeString(probe, "x", StandardCharsets.UTF_8);
            Files.delete(probe);
            return true;
        } catch (AccessDeniedException e) {
            return false;
        } catch (FileSystemException e) {
            // EPERM on an immutable directory, EROFS on a read-only mount
            return false;
        }
    }

    static boolean run(String... command) throws IOException, InterruptedException {
        try {
            Process p = new ProcessBuilder(List.of(command)).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return p.waitFor() == 0;
        } catch (IOException notInstalled) {
            return false;
        }
    }
}
