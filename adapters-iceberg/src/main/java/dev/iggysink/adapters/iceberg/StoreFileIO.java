package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import java.io.EOFException;
import java.io.IOException;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.io.BulkDeletionFailureException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsBulkOperations;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * A warehouse on S3 read and written through the sink's own object store, the one its object sink writes with,
 * instead of Iceberg's S3FileIO. S3FileIO brings a second S3 stack into the process (its own SDK client, request
 * models and staging buffers): 35 MiB of the table sink's peak RSS against a local warehouse (docs/performance.md,
 * ADR 0021). Reading, writing and deleting files go through the store; listing and deleting by prefix (table
 * upkeep, the dead-letter listing) and bulk deletes go to an S3FileIO made on first use, so the creation times
 * upkeep's orphan check reads are S3's own.
 *
 * <p>Iceberg makes a FileIO from a class name and properties, so the stores come from an {@link Opener} the
 * application registers once ({@link #useStores}). Where none is registered, or the properties ask for something the
 * store does not do (a session token a REST catalog vends, server-side encryption, an access point, anything under
 * {@code s3.}, {@code client.} or {@code http-client.} beyond endpoint, path style, key pair and region), and for
 * AWS's own catalogs (Glue, whose client factory is a {@code client.} key, and REST signed with SigV4), everything
 * goes to S3FileIO as before.
 */
public final class StoreFileIO implements FileIO, SupportsPrefixOperations, SupportsBulkOperations {
    private static final long serialVersionUID = 1L;
    private static final String S3_FILE_IO = "org.apache.iceberg.aws.s3.S3FileIO";
    /** The properties the store serves; any other {@code s3.}, {@code client.} or {@code http-client.} key does not. */
    static final Set<String> SERVED = Set.of("s3.endpoint", "s3.path-style-access", "s3.access-key-id",
            "s3.secret-access-key", "client.region", "s3.client-factory-impl");
    /** Bytes read per GET: a metadata file, manifest or manifest list is mostly one. */
    static final int CHUNK = 1024 * 1024;

    /** Opens the store of one bucket from the catalog's properties; the caller of {@link #useStores} owns nothing. */
    public interface Opener {
        ObjectStore open(String bucket, Map<String, String> properties);
    }

    private static volatile Opener opener;

    /** Makes every StoreFileIO initialized from now on open its stores with {@code stores} (null: none). */
    public static void useStores(Opener stores) {
        opener = stores;
    }

    private Map<String, String> properties = Map.of();
    private transient Opener stores;
    private transient Map<String, ObjectStore> buckets;
    /** S3FileIO: all of it when the store does not serve these properties, else only the prefix and bulk calls. */
    private transient volatile FileIO s3FileIo;

    @Override
    public void initialize(Map<String, String> props) {
        this.properties = Map.copyOf(props);
        Opener o = opener;
        if (o != null && serves(props)) {
            this.stores = o;
            this.buckets = new ConcurrentHashMap<>();
        } else {
            this.s3FileIo = CatalogUtil.loadFileIO(S3_FILE_IO, properties, null);
        }
    }

    /** Whether the store can stand in for S3FileIO with these properties. */
    static boolean serves(Map<String, String> props) {
        if (!props.containsKey("client.region")) return false;
        // AWS's own catalogs (Glue's and S3 Tables' REST endpoints): files as S3FileIO has always written them there
        if (Boolean.parseBoolean(props.get("rest.sigv4-enabled"))) return false;
        if (props.containsKey("s3.access-key-id") != props.containsKey("s3.secret-access-key")) return false;
        for (String key : props.keySet()) {
            if ((key.startsWith("s3.") || key.startsWith("client.") || key.startsWith("http-client."))
                    && !SERVED.contains(key)) {
                return false;
            }
        }
        return true;
    }

    /** Whether files go through the sink's store (false: through S3FileIO). */
    boolean throughStore() {
        return stores != null;
    }

    @Override
    public Map<String, String> properties() {
        return properties;
    }

    @Override
    public InputFile newInputFile(String location) {
        if (stores == null) return s3FileIo.newInputFile(location);
        return new In(location, store(location), key(location), -1);
    }

    @Override
    public InputFile newInputFile(String location, long length) {
        if (stores == null) return s3FileIo.newInputFile(location, length);
        return new In(location, store(location), key(location), length);
    }

    @Override
    public OutputFile newOutputFile(String location) {
        if (stores == null) return s3FileIo.newOutputFile(location);
        return new Out(location, store(location), key(location));
    }

    /**
     * Writes {@code content} at {@code location} as one object, without copying it first; through S3FileIO's output
     * stream when the store does not serve.
     */
    void put(String location, FileBytes content) throws IOException {
        if (stores == null) {
            try (PositionOutputStream out = s3FileIo.newOutputFile(location).createOrOverwrite()) {
                content.transferTo(java.nio.channels.Channels.newChannel(out));
            }
            return;
        }
        try {
            store(location).put(key(location), content, CONTENT_TYPE);
        } catch (StoreException e) {
            throw new IOException("writing " + location + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void deleteFile(String location) {
        if (stores == null) {
            s3FileIo.deleteFile(location);
            return;
        }
        try {
            store(location).delete(key(location));
        } catch (StoreException e) {
            throw new RuntimeIOException(new IOException("deleting " + location + " failed: " + e.getMessage(), e));
        }
    }

    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        return ((SupportsPrefixOperations) s3()).listPrefix(prefix);
    }

    @Override
    public void deletePrefix(String prefix) {
        ((SupportsPrefixOperations) s3()).deletePrefix(prefix);
    }

    @Override
    public void deleteFiles(Iterable<String> paths) throws BulkDeletionFailureException {
        ((SupportsBulkOperations) s3()).deleteFiles(paths);
    }

    @Override
    public void close() {
        Map<String, ObjectStore> open = buckets;
        if (open != null) {
            open.values().forEach(ObjectStore::close);
            open.clear();
        }
        FileIO io = s3FileIo;
        if (io != null) io.close();
    }

    private FileIO s3() {
        FileIO io = s3FileIo;
        if (io == null) {
            synchronized (this) {
                io = s3FileIo;
                if (io == null) s3FileIo = io = CatalogUtil.loadFileIO(S3_FILE_IO, properties, null);
            }
        }
        return io;
    }

    private ObjectStore store(String location) {
        return buckets.computeIfAbsent(bucket(location), b -> stores.open(b, properties));
    }

    private static final String CONTENT_TYPE = "application/octet-stream";

    /** The bucket of {@code s3://bucket/key} (also {@code s3a:} and {@code s3n:}). */
    static String bucket(String location) {
        int start = afterScheme(location);
        int slash = location.indexOf('/', start);
        if (slash <= start) throw new IllegalArgumentException("not an S3 location with a key: " + location);
        return location.substring(start, slash);
    }

    /** The key of {@code s3://bucket/key}. */
    static String key(String location) {
        int start = afterScheme(location);
        int slash = location.indexOf('/', start);
        if (slash <= start || slash == location.length() - 1) {
            throw new IllegalArgumentException("not an S3 location with a key: " + location);
        }
        return location.substring(slash + 1);
    }

    private static int afterScheme(String location) {
        for (String scheme : new String[] {"s3://", "s3a://", "s3n://"}) {
            if (location.startsWith(scheme)) return scheme.length();
        }
        throw new IllegalArgumentException("not an S3 location (s3://, s3a:// or s3n://): " + location);
    }

    private static RuntimeException readFailure(String location, StoreException e) {
        if (e.httpStatus() == 404) return new NotFoundException(e, "Location does not exist: %s", location);
        return new RuntimeIOException(new IOException("reading " + location + " failed: " + e.getMessage(), e));
    }

    /**
     * A file to read, fetched a chunk at a time by ranged GETs. Its length, when not given, comes from the first
     * chunk where that is the whole file (then the stream reads from it), else from a listing of its key.
     */
    private static final class In implements InputFile {
        final String location;
        final ObjectStore store;
        final String key;
        long length;
        /** The file's first chunk, once fetched for its length: the whole file when shorter than a chunk. */
        byte[] head;

        In(String location, ObjectStore store, String key, long length) {
            this.location = location;
            this.store = store;
            this.key = key;
            this.length = length;
        }

        @Override
        public long getLength() {
            if (length >= 0) return length;
            try {
                byte[] first = store.get(key, 0, CHUNK);
                if (first.length < CHUNK) {
                    if (first.length == 0 && !exists()) {
                        throw new NotFoundException("Location does not exist: %s", location);
                    }
                    head = first;
                    length = first.length;
                    return length;
                }
                for (var o : store.list(key)) {
                    if (o.key().equals(key)) {
                        length = o.size();
                        return length;
                    }
                }
                throw new NotFoundException("Location does not exist: %s", location);
            } catch (StoreException e) {
                throw readFailure(location, e);
            }
        }

        @Override
        public SeekableInputStream newStream() {
            return new Stream(this);
        }

        @Override
        public String location() {
            return location;
        }

        @Override
        public boolean exists() {
            try {
                return store.metadata(key).isPresent();
            } catch (StoreException e) {
                throw readFailure(location, e);
            }
        }
    }

    /** Reads {@link In}'s bytes a chunk at a time from where it was asked to seek. */
    private static final class Stream extends SeekableInputStream {
        final In file;
        long pos;
        /** The chunk held, and the file position of its first byte. */
        byte[] chunk;
        long chunkStart;
        /** The chunk held reached the file's end. */
        boolean chunkAtEnd;
        boolean closed;

        Stream(In file) {
            this.file = file;
            if (file.head != null) {
                chunk = file.head;
                chunkStart = 0;
                chunkAtEnd = file.head.length < CHUNK;
            }
        }

        @Override
        public long getPos() {
            return pos;
        }

        @Override
        public void seek(long newPos) throws IOException {
            if (closed) throw new IOException("the stream of " + file.location + " is closed");
            if (newPos < 0) throw new EOFException("negative position " + newPos + " in " + file.location);
            pos = newPos;
        }

        @Override
        public int read() throws IOException {
            byte[] one = new byte[1];
            int n = read(one, 0, 1);
            return n < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            if (closed) throw new IOException("the stream of " + file.location + " is closed");
            if (len == 0) return 0;
            if (!holds(pos) && !fill()) return -1;
            int at = (int) (pos - chunkStart);
            int n = Math.min(len, chunk.length - at);
            System.arraycopy(chunk, at, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public long skip(long n) {
            if (n <= 0) return 0;
            pos += n;
            return n;
        }

        @Override
        public void close() {
            closed = true;
            chunk = null;
        }

        private boolean holds(long position) {
            return chunk != null && position >= chunkStart && position < chunkStart + chunk.length;
        }

        /** Fetches the chunk at {@link #pos}; false at the file's end. */
        private boolean fill() throws IOException {
            if (chunk != null && chunkAtEnd && pos >= chunkStart + chunk.length) return false;
            if (file.length >= 0 && pos >= file.length) return false;
            byte[] got;
            try {
                got = file.store.get(file.key, pos, CHUNK);
            } catch (StoreException e) {
                RuntimeException failure = readFailure(file.location, e);
                if (failure instanceof NotFoundException) throw failure;
                throw new IOException("reading " + file.location + " failed: " + e.getMessage(), e);
            }
            if (got.length == 0) {
                // nothing there: past the end, or no object at all (a ranged GET of a missing key fails above)
                return false;
            }
            chunk = got;
            chunkStart = pos;
            chunkAtEnd = got.length < CHUNK;
            return true;
        }
    }

    /** A file to write: its bytes gather in memory and go up as one object (or in parts) when the stream closes. */
    private static final class Out implements OutputFile {
        final String location;
        final ObjectStore store;
        final String key;

        Out(String location, ObjectStore store, String key) {
            this.location = location;
            this.store = store;
            this.key = key;
        }

        @Override
        public PositionOutputStream create() {
            try {
                if (store.metadata(key).isPresent()) {
                    throw new AlreadyExistsException("Location already exists: %s", location);
                }
            } catch (StoreException e) {
                throw readFailure(location, e);
            }
            return createOrOverwrite();
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            FileBuffer buffer = new FileBuffer(location);
            PositionOutputStream bytes = buffer.createOrOverwrite();
            return new PositionOutputStream() {
                boolean closed;

                @Override
                public long getPos() {
                    return buffer.length();
                }

                @Override
                public void write(int b) throws IOException {
                    bytes.write(b);
                }

                @Override
                public void write(byte[] b, int off, int len) throws IOException {
                    bytes.write(b, off, len);
                }

                @Override
                public void close() throws IOException {
                    if (closed) return;
                    closed = true;
                    bytes.close();
                    try {
                        store.put(key, buffer.bytes(), CONTENT_TYPE);
                    } catch (StoreException e) {
                        throw new IOException("writing " + location + " failed: " + e.getMessage(), e);
                    }
                }
            };
        }

        @Override
        public String location() {
            return location;
        }

        @Override
        public InputFile toInputFile() {
            return new In(location, store, key, -1);
        }
    }
}
