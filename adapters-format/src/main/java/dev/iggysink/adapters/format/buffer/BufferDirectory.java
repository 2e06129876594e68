package dev.iggysink.adapters.format.buffer;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Comparator;
import java.util.Deque;
import java.util.EnumSet;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
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
 *
 * <p>What is buffered is the sink's user's only: on a POSIX file system the process's directory is made
 * {@code rwx------} and every file in it {@code rw-------}, given to the system call that creates it rather than set
 * by a chmod afterwards (nothing is readable in between; a umask can only take bits away), so that other users of a shared directory such as {@code /tmp} can
 * neither list nor read the records. A configured directory that does not exist yet is made {@code rwx------} too;
 * one that exists keeps the mode its owner gave it.
 *
 * <p>A file whose bytes are no longer needed (uploaded, or dropped) is {@linkplain #release released}: kept for the
 * next open file to be written over while it is young, else deleted. Why: creating a file, growing it page by page
 * and deleting it after the upload is work for the file system on every page (allocating and reserving each page,
 * then freeing each one at the delete; figures: docs/adr/0010-buffer-files-written-over-while-young.md); a file
 * written over keeps its pages. "Young" is under half the kernel's {@code vm.dirty_expire_centisecs} (30 s by
 * default, so 15 s) since the file was made: the kernel writes a file's dirty pages to disk once they are older than
 * that, which a file deleted sooner never costs, and a reused file must not either. Released files wait in the
 * directory (at most {@value #MAX_IDLE}; older ones are deleted by a sweep), so the disk and page cache they hold stay
 * bounded.
 */
public final class BufferDirectory implements AutoCloseable {
    private static final System.Logger LOG = System.getLogger(BufferDirectory.class.getName());
    public static final String PREFIX = "iggy-s3-sink-";
    private static final String LOCK = ".lock";

    /** Released files kept for reuse at most: twice what 8 partitions and 4 uploads have in flight. */
    static final int MAX_IDLE = 24;
    /**
     * Open files that keep their descriptor between writes, at most; any further one is opened for each write and
     * closed again. Bounds the descriptors a sink with many partitions and open files holds.
     */
    public static final int MAX_HELD_OPEN = 64;
    private static final ScheduledExecutorService SWEEPER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "buffer-directory-sweep");
        t.setDaemon(true);
        return t;
    });

    private final Path dir;
    /** What a new file of {@link #dir} is created with: {@code rw-------} where the file system has POSIX modes. */
    private final FileAttribute<?>[] fileMode;
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final AtomicLong next = new AtomicLong();
    private final int staleRemoved;
    /** How long after it was made a file may still be written over; 0: never reused. */
    private final long reuseNanos;
    private final LongSupplier nanoClock;
    /** Released files waiting to be written over, the most recently released first. */
    private final Deque<Path> idle = new ConcurrentLinkedDeque<>();
    /** When each file of this directory that may be reused was made ({@link #nanoClock}). */
    private final Map<Path, Long> made = new ConcurrentHashMap<>();
    private final ScheduledFuture<?> sweep;
    private volatile boolean closed;
    /** Descriptors left to hold open (see {@link #MAX_HELD_OPEN}). */
    private final Semaphore holdable = new Semaphore(MAX_HELD_OPEN);

    private BufferDirectory(Path dir, FileChannel lockChannel, FileLock lock, int staleRemoved, Duration reuseFor,
                            LongSupplier nanoClock) {
        this.dir = dir;
        this.fileMode = mode(dir, "rw-------");
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.staleRemoved = staleRemoved;
        this.reuseNanos = Math.max(0, reuseFor.toNanos());
        this.nanoClock = nanoClock;
        long every = Math.max(Duration.ofMillis(50).toNanos(), reuseNanos / 4);
        this.sweep = reuseNanos == 0 ? null
                : SWEEPER.scheduleWithFixedDelay(this::sweep, every, every, TimeUnit.NANOSECONDS);
    }

    /**
     * Creates {@code base} if needed, deletes what ended processes left in it and makes this process's directory.
     *
     * @throws IOException the directory cannot be created or written (the message names it)
     */
    public static BufferDirectory open(Path base) throws IOException {
        return open(base, reuseLimit(Path.of("/proc/sys/vm/dirty_expire_centisecs")), System::nanoTime);
    }

    /**
     * How long a file may be written over: half of {@code vm.dirty_expire_centisecs} read from {@code setting}, at
     * most 15 s; 10 s when it cannot be read (not Linux).
     */
    static Duration reuseLimit(Path setting) {
        // One read for the whole value: procfs answers a read past offset 0 of a sysctl with nothing, so a reader
        // that first reads one byte (Files.readString does on a file whose size says 0) gets "3" of "3000".
        try (InputStream in = Files.newInputStream(setting)) {
            long centis = Long.parseLong(new String(in.readNBytes(64), StandardCharsets.US_ASCII).trim());
            return Duration.ofMillis(Math.min(15_000, Math.max(0, centis) * 10 / 2));
        } catch (IOException | RuntimeException e) {
            return Duration.ofSeconds(10);
        }
    }

    /** As {@link #open(Path)}, with files written over for up to {@code reuseFor} after they were made. */
    public static BufferDirectory open(Path base, Duration reuseFor, LongSupplier nanoClock) throws IOException {
        Path root = base.toAbsolutePath().normalize();
        FileAttribute<?>[] dirMode = mode(root, "rwx------");
        try {
            Files.createDirectories(root, dirMode);
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
                Files.createDirectory(dir, dirMode);
            } catch (java.nio.file.FileAlreadyExistsException taken) {
                continue; // another sink of this process
            }
            FileChannel channel = FileChannel.open(dir.resolve(LOCK),
                    EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE), mode(dir, "rw-------"));
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
            return new BufferDirectory(dir, channel, lock, stale, reuseFor, nanoClock);
        }
    }

    /**
     * {@code mode} ({@code "rwx------"}) as an attribute to create a file or directory with in {@code where}'s file
     * system, or none where it has no POSIX modes (there, the file system's own access rules apply).
     */
    private static FileAttribute<?>[] mode(Path where, String mode) {
        if (!where.getFileSystem().supportedFileAttributeViews().contains("posix")) return new FileAttribute<?>[0];
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(mode))};
    }

    private static int removeStale(Path root) throws IOException {
        int removed = 0;
        try (DirectoryStream<Path> children = Files.newDirectoryStream(root, PREFIX + "*")) {
            for (Path child : children) {
                if (Files.isDirectory(child, LinkOption.NOFOLLOW_LINKS) && !held(child)) {
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
        // notExists, not !exists: another user's private directory cannot be looked into, and is not ours to delete.
        if (Files.notExists(lockFile)) {
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

    /**
     * A file of this process's directory to write from its start: a released one that is still young, else a new,
     * empty one. What a reused file held beyond what is written now is not part of anything read from it (readers
     * are given a length), and is cut off at seal.
     */
    Path newFile() throws IOException {
        for (Path reused; (reused = idle.pollFirst()) != null; ) {
            if (young(reused)) return reused;
            delete(reused);
        }
        Path file = dir.resolve(next.incrementAndGet() + ".buf");
        try {
            Files.createFile(file, fileMode);
        } catch (NoSuchFileException e) {
            throw new IOException("buffer_directory " + dir + " is gone (deleted while the sink runs?)", e);
        }
        if (reuseNanos > 0) made.put(file, nanoClock.getAsLong());
        return file;
    }

    /**
     * Gives back a file of {@link #newFile} whose bytes nobody reads any more: kept to be written over while it is
     * young and there is room, else deleted. Called once per file use, from any thread.
     */
    void release(Path file) {
        // The cap may be passed by a release racing another: it bounds what waits, it need not be exact.
        if (!closed && young(file) && idle.size() < MAX_IDLE) {
            idle.addFirst(file);
            if (closed) sweep(); // raced with close(): nothing may stay
            return;
        }
        delete(file);
    }

    private boolean young(Path file) {
        Long at = made.get(file);
        return at != null && nanoClock.getAsLong() - at < reuseNanos;
    }

    private void delete(Path file) {
        made.remove(file);
        deleteQuietly(file);
    }

    /** Deletes released files that are too old to be written over (all of them once closed). */
    void sweep() {
        for (Path file : idle) {
            if ((closed || !young(file)) && idle.removeFirstOccurrence(file)) delete(file);
        }
    }

    /** Takes one of the {@value #MAX_HELD_OPEN} descriptors that may stay open between writes; false if none is left. */
    boolean tryHoldOpen() {
        return holdable.tryAcquire();
    }

    /** Gives back a descriptor taken by {@link #tryHoldOpen}. */
    void releaseHeldOpen() {
        holdable.release();
    }

    /** Files holding their descriptor open between writes (for tests). */
    public int heldOpen() {
        return MAX_HELD_OPEN - holdable.availablePermits();
    }

    /** Released files waiting to be written over (for tests). */
    int idleFiles() {
        return idle.size();
    }

    /** This process's directory. */
    public Path path() {
        return dir;
    }

    /** Directories of ended processes deleted at {@link #open}. */
    public int staleRemoved() {
        return staleRemoved;
    }

    /** Deletes this process's directory and every file in it; files still in use can no longer be read. */
    @Override
    public void close() {
        closed = true;
        if (sweep != null) sweep.cancel(false);
        sweep();
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
