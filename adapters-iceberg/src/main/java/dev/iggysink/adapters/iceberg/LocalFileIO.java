package dev.iggysink.adapters.iceberg;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import java.util.Map;
import org.apache.iceberg.exceptions.RuntimeIOException;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * A warehouse on the local filesystem ({@code file:///dir} or a plain absolute path). Iceberg's own
 * {@link org.apache.iceberg.Files} does the reading and writing; this only maps locations to files and back, keeping
 * each location as given so the catalog and the metadata record {@code file:} URIs other engines can open. Chosen
 * over Hadoop's FileIO, which would drag in Hadoop's filesystem and security stack and leave a {@code .crc} file
 * beside every file.
 */
public final class LocalFileIO implements SupportsPrefixOperations {
    private static final long serialVersionUID = 1L;

    private Map<String, String> properties = Map.of();

    /** Whether a warehouse location is on the local filesystem: a {@code file:} URI or an absolute path. */
    static boolean isLocal(String location) {
        return location.startsWith("file:") || location.startsWith("/");
    }

    /**
     * The warehouse as a {@code file:} URI: a relative path is resolved against the working directory once, here, so
     * the catalog never holds a location that means something else to the next process.
     */
    static String normalize(String warehouse) {
        if (warehouse.startsWith("file:")) return warehouse;
        String uri = Path.of(warehouse).toAbsolutePath().normalize().toUri().toString();
        return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
    }

    static File file(String location) {
        if (location.startsWith("file:")) {
            try {
                return Path.of(URI.create(location)).toFile();
            } catch (IllegalArgumentException notEncoded) {
                // Iceberg joins names onto the warehouse unencoded: "file:/a b/t" is a path, not a URI.
                String path = location.startsWith("file://") ? location.substring("file://".length())
                        : location.substring("file:".length());
                return new File(path);
            }
        }
        return new File(location);
    }

    @Override
    public InputFile newInputFile(String location) {
        return new In(location, file(location));
    }

    @Override
    public OutputFile newOutputFile(String location) {
        return new Out(location, file(location));
    }

    @Override
    public void deleteFile(String location) {
        try {
            Files.deleteIfExists(file(location).toPath());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + location, e);
        }
    }

    /**
     * Every file below {@code prefix} (a directory location), each named as {@code prefix} joined with its relative
     * path, so names compare with the locations Iceberg made by the same joining.
     */
    @Override
    public Iterable<FileInfo> listPrefix(String prefix) {
        String base = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
        Path dir = file(base).toPath();
        if (!Files.isDirectory(dir)) return List.of();
        List<FileInfo> out = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                String relative = dir.relativize(f).toString().replace(File.separatorChar, '/');
                out.add(new FileInfo(base + "/" + relative, Files.size(f), Files.getLastModifiedTime(f).toMillis()));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list " + prefix, e);
        }
        return out;
    }

    @Override
    public void deletePrefix(String prefix) {
        for (FileInfo f : listPrefix(prefix)) deleteFile(f.location());
    }

    @Override
    public void initialize(Map<String, String> props) {
        this.properties = Map.copyOf(props);
    }

    @Override
    public Map<String, String> properties() {
        return properties;
    }

    private record In(String location, File file) implements InputFile {
        @Override
        public long getLength() {
            if (!file.isFile()) throw new org.apache.iceberg.exceptions.NotFoundException("no file %s", location);
            return file.length();
        }

        @Override
        public SeekableInputStream newStream() {
            return org.apache.iceberg.Files.localInput(file).newStream();
        }

        @Override
        public boolean exists() {
            return file.exists();
        }
    }

    private record Out(String location, File file) implements OutputFile {
        @Override
        public PositionOutputStream create() {
            parents();
            return org.apache.iceberg.Files.localOutput(file).create();
        }

        @Override
        public PositionOutputStream createOrOverwrite() {
            parents();
            return org.apache.iceberg.Files.localOutput(file).createOrOverwrite();
        }

        /** Iceberg's own mkdirs fails when another stager thread creates the same partition directory first. */
        private void parents() {
            File dir = file.getAbsoluteFile().getParentFile();
            try {
                if (dir != null) Files.createDirectories(dir.toPath());
            } catch (IOException e) {
                throw new RuntimeIOException(e, "cannot create the directory %s", dir);
            }
        }

        @Override
        public InputFile toInputFile() {
            return new In(location, file);
        }
    }
}
