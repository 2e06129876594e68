package dev.iggysink.adapters.config;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/** Sample files from src/test/resources, and variants of them written to a temporary directory. */
final class TestFiles {
    private TestFiles() {
    }

    static Path resource(String name) {
        try {
            return Path.of(TestFiles.class.getResource("/" + name).toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("missing test resource " + name, e);
        }
    }

    static String read(String name) {
        try {
            return Files.readString(resource(name), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Path write(Path dir, String name, String text) {
        try {
            Path file = dir.resolve(name);
            Files.createDirectories(file.getParent());
            Files.writeString(file, text, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Writes a table sink file to {@code file}: one stream into lake.events, then {@code pluginConfig}. */
    static Path tableSink(Path file, String pluginConfig) {
        return write(file.getParent(), file.getFileName().toString(), """
                type = "sink"
                key = "lake"
                enabled = true
                version = 0
                name = "lake"
                path = "iceberg_sink"
                [[streams]]
                stream = "s"
                topics = ["t"]
                schema = "json"
                [plugin_config]
                tables = ["lake.events"]
                """ + pluginConfig);
    }

    /** The upstream guide's connector file (seed/s3.toml) with one exact line replaced (the line must exist, so a stale edit fails loudly). */
    static String seedWith(String line, String replacement) {
        String seed = read("seed/s3.toml");
        if (!seed.contains(line + "\n")) {
            throw new IllegalArgumentException("seed has no line " + line);
        }
        return seed.replace(line + "\n", replacement.isEmpty() ? "" : replacement + "\n");
    }
}
