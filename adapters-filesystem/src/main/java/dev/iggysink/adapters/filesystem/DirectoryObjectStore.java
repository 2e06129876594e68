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
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.iggysink.application.file.FileBytes;
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
 * <p>User metadata lives beside the objects, in a hidden tree that mirrors the keys: key {@code a/b.jsonl} has its
 * metadata in {@code <root>/.iggy-meta/a/b.jsonl}, one {@code name=value} line each. {@code list} never shows that
 * tree and no key may start with {@value #META_DIR}/. So that an object is never visible without its metadata, nor
 * with another's, a write first puts the metadata in a pending file named by the new file's version (device,
 * inode, size and modification time, which a rename or link keeps), then makes the object visible, then moves the
 * pending file onto the key's: a reader that finds the object's version pending reads that, else the key's.
 * Where the file system has no inode numbers (Windows), the key's metadata is written before the object instead.
 *
 * <p>{@link #create} is exclusive across processes: the file is linked to its key ({@code link} fails when the key
 * exists, where a rename would replace it). A create that finds the key taken writes nothing, and leaves the
 * metadata of the object there alone.
 *
 * <p>Keys are relative paths with {@code /} separators on every OS. A key that is empty, absolute, has an empty,
 * {@code .} or {@code ..} segment, a NUL, or (on Windows) a backslash or colon is refused, not retried: it could land
 * outside the root or under another key's name.
 */
public final class DirectoryObjectStore implements ObjectStore {
    static final String PROBE_KEY = ".iggy-sink-probe";
    static final String TEMP_PREFIX = ".iggy-sink-tmp-";
    static final String META_DIR = ".iggy-meta";
    /** S3's limit on an object's user metadata, names and values together; the same here so stores agree. */
    private static final int MAX_METADATA_BYTES = 2048;
    private static final System.Logger LOG = System.getLogger(DirectoryObjectStore.class.getName());
    private static final boolean WINDOWS = System.getProperty("os.name", "").toLowerCase(Locale.ROOT)
            .startsWith("windows");

    private final Path root;
    private final Path metaRoot;
    private final String shown;

    public DirectoryObjectStore(Path directory) {
        this.root = directory.toAbsolutePath().normalize();
        this.metaRoot = root.resolve(META_DIR);
        this.shown = root.toString();
    }

    @Override
    public void put(String key, FileBytes content, String contentType, Map<String, String> metadata)
            throws StoreException {
        write("PUT", key, content, metadata);
    }

    private void write(String operation, String key, FileBytes content, Map<String, String> metadata)
            throws StoreException {
        Path target = resolve(operation, key);
        byte[] meta = encodeMetadata(operation, key, metadata);
        checkRoot(operation, key);
        Path tmp = null;
        Path pending = null;
        try {
            Path dir = target.getParent();
            createDirectories(dir);
            tmp = writeTemp(dir, content);
            Path sidecar = sidecar(target);
            if (metadata.isEmpty()) {
                // Before the object: the metadata of the object it replaces must not pass for its own.
                removeFile(sidecar);
            } else {
                metaDirectories(sidecar.getParent());
                String version = version(Files.readAttributes(tmp, BasicFileAttributes.class));
                if (version == null) {
                    replaceDurably(sidecar, meta);
                } else {
                    pending = pending(sidecar, version);
                    writeDurably(pending, meta);
                    fsyncDirectory(pending.getParent());
                }
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
            tmp = null;
            fsyncDirectory(dir);
            if (pending != null) {
                Path published = pending;
                pending = null;
                publish(operation, key, published, sidecar);
            }
        } catch (IOException e) {
            throw FileFailures.classify(operation, key, shown, e);
        } finally {
            removeQuietly(operation, key, tmp);
            removeQuietly(operation, key, pending);
        }
    }

    /**
     * Writes {@code content} to a new temp file in {@code dir}, fsynced. CREATE_NEW with the default permissions
     * (umask), unlike createTempFile's owner-only 0600: readers of the lake are usually other users.
     */
    private static Path writeTemp(Path dir, FileBytes content) throws IOException {
        Path tmp = dir.resolve(TEMP_PREFIX + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            // Chunk by chunk, as the encoder left them: the file is never gathered into one array.
            content.forEachChunk((array, offset, length) -> {
                ByteBuffer buf = ByteBuffer.wrap(array, offset, length);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
            });
            ch.force(true);
        } catch (IOException | RuntimeException e) {
            try {
                Files.deleteIfExists(tmp);
            } catch (IOException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return tmp;
    }

    /**
     * Creates {@code key} only if no object has it. The file is written whole and fsynced under a temp name, then
     * linked to the key: {@code link} is atomic and fails when the key exists, so of several creates (threads or
     * processes) exactly one wins, and a reader sees the whole file or nothing.
     */
    @Override
    public boolean create(String key, byte[] content, Map<String, String> metadata) throws StoreException {
        return createFile(key, FileBytes.of(content), metadata);
    }

    /** A file written only if the key is free: the same exclusive create (a hard link) as a claim's. */
    @Override
    public boolean create(String key, FileBytes content, String contentType, Map<String, String> metadata)
            throws StoreException {
        return createFile(key, content, metadata);
    }

    private boolean createFile(String key, FileBytes content, Map<String, String> metadata) throws StoreException {
        String operation = "PUT If-None-Match";
        Path target = resolve(operation, key);
        byte[] meta = encodeMetadata(operation, key, metadata);
        checkRoot(operation, key);
        Path tmp = null;
        Path pending = null;
        try {
            if (Files.isRegularFile(target)) return false;
            Path dir = target.getParent();
            createDirectories(dir);
            tmp = writeTemp(dir, content);
            Path sidecar = sidecar(target);
            metaDirectories(sidecar.getParent());
            String version = version(Files.readAttributes(tmp, BasicFileAttributes.class));
            if (version != null) {
                // Even without metadata: an empty pending file keeps a stale one of the key from passing for it.
                pending = pending(sidecar, version);
                writeDurably(pending, meta);
                fsyncDirectory(pending.getParent());
            }
            try {
                Files.createLink(target, tmp);
            } catch (FileAlreadyExistsException e) {
                if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) throw e; // a conflict, as put says
                return false;
            }
            fsyncDirectory(dir);
            if (pending != null) {
                Path published = pending;
                pending = null;
                publish(operation, key, published, sidecar);
            } else if (metadata.isEmpty()) {
                removeFile(sidecar);
            } else {
                // No inode numbers to name a pending file by: the metadata follows the object as soon as it can.
                replaceDurably(sidecar, meta);
            }
            return true;
        } catch (UnsupportedOperationException e) {
            throw new StoreException(operation + " '" + key + "' in directory '" + shown + "' failed: this file"
                    + " system cannot make hard links, which an exclusive create needs", false, 0, null, e);
        } catch (IOException e) {
            throw FileFailures.classify(operation, key, shown, e);
        } finally {
            // After the link the temp name is a second name of the object's file; removing it removes only the name.
            removeQuietly(operation, key, tmp);
            removeQuietly(operation, key, pending);
        }
    }

    @Override
    public Versioned getVersioned(String key) throws StoreException {
        byte[] content = get(key);
        return new Versioned(content, etag(content));
    }

    /**
     * Replaces {@code key} when its bytes still have {@code etag}'s digest. The compare and the rename are one step
     * for every replace of this root: under a lock of this JVM (a file lock is held per process, not per thread)
     * and a file lock, so other processes' replaces wait too. A create never replaces, so it needs no lock.
     */
    @Override
    public boolean replace(String key, byte[] content, String contentType, String etag) throws StoreException {
        String operation = "PUT If-Match";
        Path target = resolve(operation, key);
        checkRoot(operation, key);
        synchronized (REPLACES) {
            try {
                createDirectories(metaRoot);
                try (FileChannel lock = FileChannel.open(metaRoot.resolve(TEMP_PREFIX + "replace.lock"),
                        StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
                    lock.lock(); // released when the channel closes
                    byte[] now = readOrNull(target);
                    if (now == null || !etag(now).equals(etag)) return false;
                    write(operation, key, FileBytes.of(content), Map.of());
                    return true;
                }
            } catch (IOException e) {
                throw FileFailures.classify(operation, key, shown, e);
            }
        }
    }

    /** Replaces of every root in this JVM, one at a time (they are rare: a completeness marker written again). */
    private static final Object REPLACES = new Object();

    /** The version of an object's bytes: their SHA-256, quoted as an S3 ETag is. */
    private static String etag(byte[] content) {
        try {
            return "\"" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(content)) + "\"";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    @Override
    public Optional<Map<String, String>> metadata(String key) throws StoreException {
        Path target = resolve("HEAD", key);
        try {
            BasicFileAttributes attrs = attributesOrNull(target);
            if (attrs == null || !attrs.isRegularFile()) {
                checkRoot("HEAD", key);
                return Optional.empty();
            }
            Path sidecar = sidecar(target);
            String version = version(attrs);
            byte[] meta = version == null ? null : readOrNull(pending(sidecar, version));
            if (meta == null) meta = readOrNull(sidecar);
            return Optional.of(meta == null ? Map.of() : decodeMetadata(key, sidecar, meta));
        } catch (IOException e) {
            throw FileFailures.classify("HEAD", key, shown, e);
        }
    }

    /**
     * Deletes the object and its metadata. The metadata is first moved to the object's pending name, where a reader
     * still finds it, so neither a crash halfway nor a create of the key right after the object is gone leaves an
     * object with another's metadata or none.
     */
    @Override
    public void delete(String key) throws StoreException {
        Path target = resolve("DELETE", key);
        checkRoot("DELETE", key);
        try {
            BasicFileAttributes attrs = attributesOrNull(target);
            Path sidecar = sidecar(target);
            if (attrs == null || !attrs.isRegularFile()) {
                removeFile(sidecar); // left by an object removed without the store
                return;
            }
            String version = version(attrs);
            Path pending = version == null ? null : pending(sidecar, version);
            if (pending != null && Files.isRegularFile(sidecar, LinkOption.NOFOLLOW_LINKS)) {
                Files.move(sidecar, pending, StandardCopyOption.ATOMIC_MOVE);
            } else if (pending == null) {
                removeFile(sidecar);
            }
            Files.deleteIfExists(target);
            if (pending != null) removeFile(pending);
        } catch (IOException e) {
            throw FileFailures.classify("DELETE", key, shown, e);
        }
    }

    /**
     * The startup check, as for the S3 stores: writes an empty {@value #PROBE_KEY} at the root and deletes it. A
     * failed write is an error; a failed delete is only logged.
     */
    @Override
    public void probe() throws StoreException {
        write("PUT (startup probe)", PROBE_KEY, FileBytes.EMPTY, Map.of());
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
        if (start.startsWith(metaRoot)) return List.of();
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
                public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                    return dir.equals(metaRoot) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

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
            throw getFailure(key, file, e);
        }
    }

    private StoreException getFailure(String key, Path file, IOException e) throws StoreException {
        checkRoot("GET", key);
        // a directory, or a file where the key needs a directory: no object under that key, as S3 would say
        if (e instanceof NoSuchFileException || Files.isDirectory(file)
                || (e instanceof FileSystemException f && "Not a directory".equals(f.getReason()))) {
            return FileFailures.notFound("GET", key, shown, e);
        }
        return FileFailures.classify("GET", key, shown, e);
    }

    @Override
    public byte[] get(String key, long from, int length) throws StoreException {
        Path file = resolve("GET", key);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            ByteBuffer out = ByteBuffer.allocate((int) Math.max(0, Math.min(length, channel.size() - from)));
            while (out.hasRemaining() && channel.read(out, from + out.position()) >= 0) {
                // a short read goes on from where it stopped
            }
            return Arrays.copyOf(out.array(), out.position());
        } catch (IOException e) {
            throw getFailure(key, file, e);
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
        if (segments[0].equals(META_DIR)) {
            throw FileFailures.badKey(operation, key, "keys under " + META_DIR + "/ are the store's metadata");
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

    /** Where the metadata of the object at {@code target} lives. */
    private Path sidecar(Path target) {
        return metaRoot.resolve(root.relativize(target));
    }

    /**
     * The metadata of one version of an object until it is moved to {@code sidecar}. Its name cannot be a key's:
     * keys may not end in a temp name.
     */
    static Path pending(Path sidecar, String version) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(version.getBytes(StandardCharsets.UTF_8));
            return sidecar.resolveSibling(TEMP_PREFIX + "meta-" + HexFormat.of().formatHex(digest, 0, 16));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    /**
     * What tells this file from any other that has had its name: device and inode (kept by a rename or link), size
     * and modification time (so a reused inode is another version). Null where the file system has no file keys.
     */
    static String version(BasicFileAttributes attrs) {
        Object fileKey = attrs.fileKey();
        if (fileKey == null) return null;
        return fileKey + "/" + attrs.size() + "/" + attrs.lastModifiedTime().to(TimeUnit.NANOSECONDS);
    }

    /** Moves the pending metadata onto the key's; when that fails it stays pending, where readers find it too. */
    private void publish(String operation, String key, Path pending, Path sidecar) {
        try {
            Files.move(pending, sidecar, StandardCopyOption.ATOMIC_MOVE);
        } catch (NoSuchFileException e) {
            // the object was deleted meanwhile, and its metadata with it
        } catch (IOException e) {
            LOG.log(Level.WARNING, operation + " '" + key + "' in directory '" + shown + "': its metadata stays in "
                    + pending.getFileName() + " (" + e + ")");
        }
    }

    /**
     * Creates the directories of the metadata tree down to {@code dir}. A metadata file where a directory is needed
     * is removed: the object it described is gone, as the object tree already has a directory there.
     */
    private void metaDirectories(Path dir) throws IOException {
        try {
            createDirectories(dir);
        } catch (FileAlreadyExistsException e) {
            for (Path p = dir; p.startsWith(metaRoot) && !p.equals(metaRoot); p = p.getParent()) {
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.delete(p);
                    break;
                }
            }
            createDirectories(dir);
        }
    }

    /** {@code bytes} in a new file, fsynced; fails if the file exists. */
    private static void writeDurably(Path file, byte[] bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer buf = ByteBuffer.wrap(bytes);
            while (buf.hasRemaining()) {
                ch.write(buf);
            }
            ch.force(true);
        }
    }

    /** {@code bytes} as the new content of {@code file}, replaced atomically. */
    private static void replaceDurably(Path file, byte[] bytes) throws IOException {
        Path tmp = file.resolveSibling(TEMP_PREFIX + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        try {
            writeDurably(tmp, bytes);
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
            tmp = null;
            fsyncDirectory(file.getParent());
        } finally {
            if (tmp != null) Files.deleteIfExists(tmp);
        }
    }

    /** Removes the regular file {@code file}; nothing there (or a directory) is nothing to remove. */
    private static void removeFile(Path file) throws IOException {
        try {
            if (Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) Files.deleteIfExists(file);
        } catch (FileSystemException e) {
            if (!"Not a directory".equals(e.getReason())) throw e;
        }
    }

    private void removeQuietly(String operation, String key, Path file) {
        if (file == null) return;
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            LOG.log(Level.WARNING, "could not remove the temp file of " + operation + " '" + key + "' in directory '"
                    + shown + "' (" + e + ")");
        }
    }

    /** The attributes of {@code path}, or null when nothing is there (or a file is where a directory would be). */
    private static BasicFileAttributes attributesOrNull(Path path) throws IOException {
        try {
            return Files.readAttributes(path, BasicFileAttributes.class);
        } catch (NoSuchFileException e) {
            return null;
        } catch (FileSystemException e) {
            if ("Not a directory".equals(e.getReason())) return null;
            throw e;
        }
    }

    /** The content of the regular file {@code file}, or null when there is none. */
    private static byte[] readOrNull(Path file) throws IOException {
        BasicFileAttributes attrs = attributesOrNull(file);
        if (attrs == null || !attrs.isRegularFile()) return null;
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            return null; // moved or removed since
        }
    }

    /**
     * One {@code name=value} line per entry, sorted. Names and values are checked as S3 checks them (lower-case
     * ASCII letters, digits and {@code -}; printable ASCII; {@value #MAX_METADATA_BYTES} bytes in all), so that
     * metadata a directory takes an S3 store takes too, and no value can break its line.
     */
    private static byte[] encodeMetadata(String operation, String key, Map<String, String> metadata)
            throws StoreException {
        StringBuilder text = new StringBuilder();
        int bytes = 0;
        for (Map.Entry<String, String> e : new TreeMap<>(metadata).entrySet()) {
            String name = e.getKey();
            String value = e.getValue();
            if (name.isEmpty() || !name.chars().allMatch(c -> c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
                    || c == '-')) {
                throw FileFailures.badMetadata(operation, key, "name '" + FileFailures.printable(name)
                        + "' is not lower-case ASCII letters, digits and '-'");
            }
            if (value == null || !value.chars().allMatch(c -> c >= 0x20 && c <= 0x7e)) {
                throw FileFailures.badMetadata(operation, key, "the value of '" + name + "' is not printable ASCII");
            }
            bytes += name.length() + value.length();
            text.append(name).append('=').append(value).append('\n');
        }
        if (bytes > MAX_METADATA_BYTES) {
            throw FileFailures.badMetadata(operation, key, bytes + " bytes, more than " + MAX_METADATA_BYTES);
        }
        return text.toString().getBytes(StandardCharsets.US_ASCII);
    }

    private StoreException damaged(String key, Path file) {
        return new StoreException("HEAD '" + key + "' in directory '" + shown + "' failed: the metadata file "
                + root.relativize(file) + " is not name=value lines", false, 0, null, null);
    }

    private Map<String, String> decodeMetadata(String key, Path file, byte[] bytes) throws StoreException {
        Map<String, String> metadata = new TreeMap<>();
        for (String line : new String(bytes, StandardCharsets.US_ASCII).split("\n")) {
            if (line.isEmpty()) continue;
            int eq = line.indexOf('=');
            if (eq <= 0) throw damaged(key, file);
            metadata.put(line.substring(0, eq), line.substring(eq + 1));
        }
        return Map.copyOf(metadata);
    }
}
