package dev.iggysink.adapters.format;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Comparator;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;

/**
 * The local directory where open files are written as they grow ({@code buffer_directory}), so that the heap holds
 * only the last few hundred KiB of each open file, and a sealed file waits for its upload in the page cache, which the
 * kernel can write out or drop, instead of the heap. Nothing here is ever the only copy of a record: a file is
 * durable only once it is in the store, and its records are read again from Iggy after a crash.
 *
 * <p>Each process works in a directory of its own under the configured one, {@code iggy-s3-sink-<pid>-<n>}, which
 * holds a lock file for as long as the process runs. At start, a sibling whose lock is free was left by a process
 * that has ended (a crash, kill -9) and is deleted; a sibling another process still holds is left alone, so several
 * sinks may share a directory. {@link #close} deletes the process's own directory. Thread-safe.
 */
public final class BufferDirectory implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(BufferDirectory.class.getName());
    static final String PREFIX = "iggy-s3-sink-";
    private static final String LOCK = ".lock";

    private final Path dir;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final AtomicLong next = new AtomicLong();
    private final int staleRemoved;

    private BufferDirectory(Path dir, FileChannel lockChannel, FileLock lock, int staleRemoved) {
        this.dir = dir;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.staleRemoved = staleRemoved;
    }

    /**
     * Creates {@code base} if needed, deletes what ended processes left in it and makes this process's directory.
     *
     * @throws IOException the directory cannot be created or written (the message names it)
     */
    public static BufferDirectory open(Path base) throws IOException {
        Path root = base.toAbsolutePath().normalize();
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new IOException("cannot create buffer_directory " + root + ": " + e, e);
        }
        if (!Files.isDirectory(root) || !Files.isWritable(root)) {
            throw new IOException("buffer_directory " + root + " is not a writable directory");
        }
        int stale = removeStale(root);
        long pid = ProcessHandle.current().pid();
        for (int n = 0; ; n++) {
            Path dir = root.resolve(PREFIX + pid + "-" + n);
            try {
                Files.createDirectory(dir);
            } catch (java.nio.file.FileAlreadyExistsException taken) {
                continue; // another sink of this process
            }
            FileChannel channel = FileChannel.open(dir.resolve(LOCK), StandardOpenOption.CREATE_NEW,
                    StandardOpenOption.WRITE);
            FileLock lock;
            try {
                lock = channel.lock();
                channel.write(java.nio.ByteBuffer.wrap((pid + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
            } catch (IOException | RuntimeException e) {
                channel.close();
                throw e;
            }
            if (stale > 0) {
                LOG.log(Level.INFO, "buffer_directory " + root + ": deleted " + stale
                        + " directory(ies) left by ended processes (never-uploaded files; their records are re-read)");
            }
            return new BufferDirectory(dir, channel, lock, stale);
        }
    }

    private static int removeStale(Path root) throws IOException {
        int removed = 0;
        try (DirectoryStream<Path> children = Files.newDirectoryStream(root, PREFIX + "*")) {
            for (Path child : children) {
                if (Files.isDirectory(child) && !held(child)) {
                    deleteTree(child);
                    removed++;
                }
            }
        }
        return removed;
    }

    /** True when a live process holds the directory's lock (or it is being made: no lock file yet). */
    private static boolean held(Path child) {
        Path lockFile = child.resolve(LOCK);
        if (!Files.exists(lockFile)) {
            // Being created this very moment, or left half-made by a process that died between two steps: only the
            // second is old.
            try {
                return Files.getLastModifiedTime(child).toMillis() > System.currentTimeMillis() - 60_000;
            } catch (IOException e) {
                return true;
            }
        }
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
            FileLock probe = channel.tryLock();
            if (probe == null) return true;
            probe.release();
            // Its process writes its pid into it once it holds the lock: an empty lock file made a moment ago may be
            // about to be locked by the process that made it.
            return channel.size() == 0
                    && Files.getLastModifiedTime(lockFile).toMillis() > System.currentTimeMillis() - 5_000;
        } catch (OverlappingFileLockException e) {
            return true; // held by this very process
        } catch (IOException e) {
            return true; // cannot tell: leave it
        }
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> all = Files.walk(dir)) {
            all.sorted(Comparator.reverseOrder()).forEach(BufferDirectory::deleteQuietly);
        } catch (IOException | UncheckedIOException e) {
            LOG.log(Level.WARNING, "cannot delete " + dir + ": " + e);
        }
    }

    static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot delete " + file + ": " + e);
        }
    }

    /** A new, empty file of this process's directory. */
    Path newFile() throws IOException {
        Path file = dir.resolve(next.incrementAndGet() + ".buf");
        try {
            Files.createFile(file);
        } catch (NoSuchFileException e) {
            throw new IOException("buffer_directory " + dir + " is gone (deleted while the sink runs?)", e);
        }
        return file;
    }

    /** This process's directory. */
    public Path path() {
        return dir;
    }

    /** Directories of ended processes deleted at {@link #open}. */
    int staleRemoved() {
        return staleRemoved;
    }

    /** Deletes this process's directory and every file in it; files still in use can no longer be read. */
    @Override
    public void close() {
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            LOG.log(Level.WARNING, "cannot release " + dir.resolve(LOCK) + ": " + e);
        }
        deleteTree(dir);
    }

    @Override
    public String toString() {
        return "BufferDirectory[" + dir + "]";
    }
}
