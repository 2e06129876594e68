package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.table.TableSettings;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.CatalogUtil;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * The warehouse's files that belong to no table: the dead letters, which a record that names no table has too. Written
 * and listed below the warehouse location through a FileIO made as the catalog's (the same implementation and store
 * settings), so they land in the same store with the same credentials as the tables' data files.
 *
 * <p>With a {@code dlq_location} the dead letters lie there instead: the key {@code <dlq_prefix>/<stream>/...} is
 * written at {@code <dlq_location>/<stream>/...}, since the location already is the dead letters' own place, and is
 * listed back under its key, so the audit reads both layouts alike.
 */
public final class WarehouseFiles implements AutoCloseable {
    private final FileIO io;
    /** The warehouse location (or the dlq_location) without a trailing slash. */
    private final String root;
    /** The key prefix {@link #root} stands for: empty for the warehouse, the dlq_prefix for a dlq_location. */
    private final String base;

    WarehouseFiles(FileIO io, String root) {
        this(io, root, "");
    }

    WarehouseFiles(FileIO io, String root, String base) {
        this.io = io;
        String r = root;
        while (r.endsWith("/")) r = r.substring(0, r.length() - 1);
        this.root = r;
        this.base = base.isEmpty() ? "" : base + "/";
    }

    /**
     * The warehouse of these catalog settings, or empty when it is a REST catalog's warehouse name rather than a
     * location ({@code s3://bucket/path}, {@code file:/dir}): then the server alone knows where its files are.
     */
    public static Optional<WarehouseFiles> of(CatalogSettings s) {
        return of(s, TableSettings.DEFAULT_DLQ_PREFIX);
    }

    /**
     * As {@link #of(CatalogSettings)}, but with the settings' {@code dlq_location} the files lie there, keys below
     * {@code dlqPrefix} mapped onto it; its FileIO is chosen as the warehouse's would be for that location (S3FileIO
     * with the store settings, or local files for a {@code file:} or absolute path).
     */
    public static Optional<WarehouseFiles> of(CatalogSettings s, String dlqPrefix) {
        if (s.dlqLocation().isPresent()) {
            String location = s.dlqLocation().get();
            if (location.startsWith("/")) location = "file:" + location;
            CatalogSettings there = new CatalogSettings(s.type(), s.name(), s.uri(), location, s.token(),
                    s.credential(), s.oauth2ServerUri(), s.user(), s.password(), s.storeUrl(), s.accessKeyId(),
                    s.secretAccessKey(), s.region(), s.pathStyle());
            Map<String, String> properties = IcebergCatalogs.properties(there);
            return Optional.of(new WarehouseFiles(CatalogUtil.loadFileIO(
                    properties.get(CatalogProperties.FILE_IO_IMPL), properties, null),
                    properties.get(CatalogProperties.WAREHOUSE_LOCATION), dlqPrefix));
        }
        Map<String, String> properties = IcebergCatalogs.properties(s);
        String location = properties.get(CatalogProperties.WAREHOUSE_LOCATION);
        // An ARN (S3 Tables' table bucket) names a warehouse as much as a plain name does: no place for files.
        if (!location.matches("[A-Za-z][A-Za-z0-9+.-]*:.*") || location.startsWith("arn:")) return Optional.empty();
        return Optional.of(new WarehouseFiles(CatalogUtil.loadFileIO(properties.get(CatalogProperties.FILE_IO_IMPL),
                properties, null), location));
    }

    /** Where {@code key} lies. */
    String location(String key) {
        return root + "/" + relative(key);
    }

    /** The part of {@code key} below {@link #root}. */
    private String relative(String key) {
        if (base.isEmpty()) return key;
        if (key.startsWith(base)) return key.substring(base.length());
        String dir = base.substring(0, base.length() - 1);
        return dir.startsWith(key) ? "" : key;
    }

    /** Writes {@code content} at {@code key}, replacing what is there; durable once this returns. */
    String write(String key, byte[] content) throws StoreException {
        String location = location(key);
        try (PositionOutputStream out = io.newOutputFile(location).createOrOverwrite()) {
            out.write(content);
        } catch (IOException | RuntimeException e) {
            throw failure("writing " + location, e);
        }
        return location;
    }

    /** The content at {@code key}; empty when nothing is there. */
    Optional<byte[]> read(String key) throws StoreException {
        String location = location(key);
        try {
            org.apache.iceberg.io.InputFile in = io.newInputFile(location);
            if (!in.exists()) return Optional.empty();
            try (java.io.InputStream stream = in.newStream()) {
                return Optional.of(stream.readAllBytes());
            }
        } catch (org.apache.iceberg.exceptions.NotFoundException | java.io.FileNotFoundException gone) {
            return Optional.empty();
        } catch (IOException | RuntimeException e) {
            throw failure("reading " + location, e);
        }
    }

    /** Deletes what is at {@code key}; nothing there is no failure. */
    void delete(String key) throws StoreException {
        String location = location(key);
        try {
            io.deleteFile(location);
        } catch (org.apache.iceberg.exceptions.NotFoundException gone) {
            // already gone: what was asked for
        } catch (RuntimeException e) {
            throw failure("deleting " + location, e);
        }
    }

    /** The keys below {@code prefix}, relative to the warehouse. */
    List<String> keys(String prefix) throws StoreException {
        List<String> keys = new ArrayList<>();
        try {
            if (io instanceof SupportsPrefixOperations listing) {
                for (FileInfo f : listing.listPrefix(location(prefix))) {
                    if (f.location().startsWith(root + "/")) {
                        keys.add(base + f.location().substring(root.length() + 1));
                    }
                }
            } else if (LocalFileIO.isLocal(root)) {
                File top = LocalFileIO.file(root);
                File dir = LocalFileIO.file(location(prefix));
                if (!dir.isDirectory()) return keys;
                try (Stream<Path> files = Files.walk(dir.toPath())) {
                    files.filter(Files::isRegularFile).forEach(p -> keys.add(base + top.toPath().relativize(p)
                            .toString().replace(File.separatorChar, '/')));
                }
            } else {
                throw new StoreException(io.getClass().getSimpleName() + " cannot list " + location(prefix), false, 0,
                        null, null);
            }
        } catch (IOException | RuntimeException e) {
            throw failure("listing " + location(prefix), e);
        }
        return keys;
    }

    /** A refusal of the store (a 4xx but a timeout or throttling) will not pass by trying again. */
    static StoreException failure(String what, Throwable e) {
        int status = 0;
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof SdkServiceException s) {
                status = s.statusCode();
                break;
            }
            // through the sink's own store (StoreFileIO): its status, and its word on whether to try again
            if (t instanceof StoreException s) {
                String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
                return new StoreException(what + " failed: " + message, s.retryable(), s.httpStatus(),
                        s.retryAfter().orElse(null), e);
            }
        }
        boolean retryable = status < 400 || status >= 500 || status == 408 || status == 429;
        String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return new StoreException(what + " failed: " + message, retryable, status, null, e);
    }

    @Override
    public void close() {
        io.close();
    }
}
