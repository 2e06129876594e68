package dev.iggysink.adapters.filesystem;

import java.io.IOException;
import java.lang.System.Logger.Level;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;

import dev.iggysink.application.port.out.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;

/**
 * Objects as files under one root directory: key {@code a/b/c.jsonl} is the file {@code <root>/a/b/c.jsonl}; missing
 * directories under the root are created, the root itself never is (see {@link FileFailures}).
 *
 * <p>A put is atomic and durable: the bytes go to a temp file in the target's directory, which is fsynced and renamed
 * over the target ({@code ATOMIC_MOVE}); then the directory is fsynced so the rename survives a crash. A reader sees
 * the old object or the new one, never a part. Temp files are named {@value #TEMP_PREFIX}… and are not objects: list
 * skips them and no key may name one. The content type has nowhere to go on a plain file system and is dropped.
 *
 * <p>Keys are relative paths with {@code /} separators on every OS. A key that is empty, absolute, has an empty,
 * {@code .} or {@code ..} segment, a NUL, or (on Windows) a backslash or colon is refused, not retried: it could land
 * outside the root or under another key's name.
 */
public final class DirectoryObjectStore implements ObjectStore {
    static final String PROBE_KEY = ".iggy-sink-probe";
    static final String TEMP_PREFIX = ".iggy-sink-tmp-";
    private static final System.Logger LOG = System.getLogger(DirectoryObjectStore.class.getName());
    private static final boolean WINDOWS = System.getProperty("os.name", "").toLowerCase(Locale.ROOT)
            .startsWith("windows");

    private final Path root;
    private final String shown;

    public DirectoryObjectStore(Path directory) {
        this.root = directory.toAbsolutePath().normalize();
        this.shown = root.toString();
    }

    @Override
    public void put(String key, FileBytes content, String contentType) throws StoreException {
        write("PUT", key, content);
    }

    private void write(String operation, String key, FileBytes content) throws StoreException {
        Path target = resolve(operation, key);
        checkRoot(operation, key);
        Path tmp = null;
        try {
            Path dir = target.getParent();
            createDirectories(dir);
            tmp = dir.resolve(TEMP_PREFIX + Long.toHexString(ThreadLocalRandom.current().nextLong()));
            // CREATE_NEW with the default permissions (umask), unlike createTempFile's owner-only 0600: readers of
            // the lake are usually other users.
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                // Chunk by chunk, as the encoder left them: the file is never gathered into one array.
                content.forEachChunk((array, offset, length) -> {
                    ByteBuffer buf = ByteBuffer.wrap(array, offset, length);
                    while (buf.hasRemaining()) {
                        ch.write(buf);
                    }
                });
                ch.force(true);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            tmp = null;
            fsyncDirectory(dir);
        } catch (IOException e) {
            throw FileFailures.classify(operation, key, shown, e);
        } finally {
            if (tmp != null) {
                try {
                    Files.deleteIfExists(tmp);
                } catch (IOException e) {
                    LOG.log(Level.WARNING, "could not remove the temp file of a failed " + operation + " '" + key
                            + "' in directory '" + shown + "' (" + e + ")");
                }
            }
        }
    }

    /**
     * The startup check, as for the S3 stores: writes an empty {@value #PROBE_KEY} at the root and deletes it. A
     * failed write is an error; a failed delete is only logged.
     */
    @Override
    public void probe() throws StoreException {
        write("PUT (startup probe)", PROBE_KEY, FileBytes.EMPTY);
        try {
            Files.deleteIfExists(root.resolve(PROBE_KEY));
        } catch (IOException e) {
            LOG.log(Level.WARNING, "Startup probe: could not delete '" + PROBE_KEY + "' in directory '" + shown
                    + "' (" + e + "); the sink starts anyway");
        }
    }

    @Override
    public List<StoredObject> list(String prefix) throws StoreException {
        if (prefix.indexOf('\0') >= 0 || prefix.startsWith("/")
                || Arrays.asList(prefix.split("/", -1)).contains("..")) {
            throw FileFailures.badKey("LIST", prefix, "a prefix is a relative path inside the directory");
        }
        checkRoot("LIST", prefix);
        // Walk only the deepest directory the prefix names in full, then match the rest as a plain string prefix.
        int slash = prefix.lastIndexOf('/');
        Path start;
        try {
            start = slash < 0 ? root : root.resolve(prefix.substring(0, slash));
        } catch (InvalidPathException e) {
            throw FileFailures.badKey("LIST", prefix, "not a valid path on this system (" + e.getReason() + ")");
        }
        List<StoredObject> objects = new ArrayList<>();
        try {
            // Nothing there, or a file where the prefix names a directory, is an empty listing, as on S3; any other
            // failure (a stale handle) is one, not an empty result.
            try {
                if (!Files.readAttributes(start, BasicFileAttributes.class).isDirectory()) return List.of();
            } catch (NoSuchFileException e) {
                return List.of();
            } catch (FileSystemException e) {
                if ("Not a directory".equals(e.getReason())) return List.of();
                throw e;
            }
            Files.walkFileTree(start, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    String name = file.getFileName().toString();
                    if (attrs.isRegularFile() && !name.startsWith(TEMP_PREFIX)) {
                        String key = keyOf(file);
                        if (key.startsWith(prefix)) objects.add(new StoredObject(key, attrs.size()));
                    }
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    // A file renamed or removed while walking is simply not listed.
                    if (e instanceof NoSuchFileException) return FileVisitResult.CONTINUE;
                    throw e;
                }
            });
        } catch (IOException e) {
            throw FileFailures.classify("LIST", prefix, shown, e);
        }
        // S3's order: by the UTF-8 bytes of the key.
        objects.sort(Comparator.comparing(o -> o.key().getBytes(StandardCharsets.UTF_8), Arrays::compareUnsigned));
        return objects;
    }

    @Override
    public byte[] get(String key) throws StoreException {
        Path file = resolve("GET", key);
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            checkRoot("GET", key);
            // a directory, or a file where the key needs a directory: no object under that key, as S3 would say
            if (e instanceof NoSuchFileException || Files.isDirectory(file)
                    || (e instanceof FileSystemException f && "Not a directory".equals(f.getReason()))) {
                throw FileFailures.notFound("GET", key, shown, e);
            }
            throw FileFailures.classify("GET", key, shown, e);
        }
    }

    @Override
    public void close() {
        // nothing held between calls
    }

    private String keyOf(Path file) {
        StringBuilder key = new StringBuilder();
        for (Path part : root.relativize(file)) {
            if (key.length() > 0) key.append('/');
            key.append(part);
        }
        return key.toString();
    }

    private Path resolve(String operation, String key) throws StoreException {
        if (key.isEmpty()) throw FileFailures.badKey(operation, key, "a key may not be empty");
        if (key.indexOf('\0') >= 0) throw FileFailures.badKey(operation, key, "a key may not contain NUL");
        if (key.startsWith("/")) throw FileFailures.badKey(operation, key, "a key is a relative path, not absolute");
        if (WINDOWS && (key.indexOf('\\') >= 0 || key.indexOf(':') >= 0)) {
            throw FileFailures.badKey(operation, key, "a key may not contain '\\' or ':' on Windows");
        }
        String[] segments = key.split("/", -1);
        for (String segment : segments) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
                throw FileFailures.badKey(operation, key, "a key may not have an empty, '.' or '..' segment");
            }
        }
        if (segments[segments.length - 1].startsWith(TEMP_PREFIX)) {
            throw FileFailures.badKey(operation, key, "names starting with " + TEMP_PREFIX + " are the store's"
                    + " temp files");
        }
        Path resolved;
        try {
            resolved = root.resolve(key.replace('/', root.getFileSystem().getSeparator().charAt(0))).normalize();
        } catch (InvalidPathException e) {
            throw FileFailures.badKey(operation, key, "not a valid path on this system (" + e.getReason() + ")");
        }
        if (!resolved.startsWith(root) || resolved.equals(root)) {
            throw FileFailures.badKey(operation, key, "the key escapes the directory");
        }
        return resolved;
    }

    /**
     * The root must exist and be a directory. Asked before each write, so a volume that is not mounted (or a root
     * removed under the sink) is a clear final error rather than a directory tree created in the wrong place.
     */
    private void checkRoot(String operation, String key) throws StoreException {
        BasicFileAttributes attrs;
        try {
            attrs = Files.readAttributes(root, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            throw FileFailures.missingRoot(operation, key, shown, "does not exist", e);
        } catch (IOException e) {
            throw FileFailures.classify(operation, key, shown, e);
        }
        if (!attrs.isDirectory()) {
            throw FileFailures.missingRoot(operation, key, shown, "is not a directory", null);
        }
    }

    /** Creates the directories between the root and {@code dir}, fsyncing each parent so a new entry is durable. */
    private void createDirectories(Path dir) throws IOException {
        if (Files.isDirectory(dir)) return;
        Path current = root;
        for (Path part : root.relativize(dir)) {
            Path next = current.resolve(part);
            try {
                Files.createDirectory(next);
                fsyncDirectory(current);
            } catch (FileAlreadyExistsException e) {
                if (!Files.isDirectory(next)) throw e;
            }
            current = next;
        }
    }

    private static void fsyncDirectory(Path dir) throws IOException {
        if (WINDOWS) return; // a directory cannot be opened there, and NTFS journals the rename
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }
}
