package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import dev.iggysink.adapters.format.buffer.BufferDirectory;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Buffered records are private to the sink's user, on the real file system: the process's directory is made
 * {@code rwx------} and every file in it {@code rw-------}, whatever the umask lets through, so that no other user of
 * a shared temporary directory can list or read them.
 */
class BufferDirectoryPermissionsTest {
    @TempDir
    Path base;

    @BeforeEach
    void posix() {
        assumeThat(base.getFileSystem().supportedFileAttributeViews()).as("a POSIX file system").contains("posix");
    }

    private static String mode(Path p) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(p, LinkOption.NOFOLLOW_LINKS));
    }

    @Test
    void the_process_directory_is_private_to_the_sinks_user() throws Exception {
        try (BufferDirectory dir = BufferDirectory.open(base, Duration.ZERO, System::nanoTime)) {
            assertThat(mode(dir.path())).isEqualTo("rwx------");
            assertThat(mode(dir.path().resolve(".lock"))).as("the lock file").isEqualTo("rw-------");
        }
    }

    @Test
    void buffer_files_and_their_compressed_copies_are_readable_by_the_sinks_user_only() throws Exception {
        try (BufferDirectory dir = BufferDirectory.open(base, Duration.ofSeconds(15), System::nanoTime)) {
            RecordCodec codec = RecordCodecs.forStream(Fixtures.stream(PayloadSchema.JSON),
                    Fixtures.output(OutputFormat.JSON_LINES, Compression.GZIP, true, false), List.of(), dir);
            FileEncoder file = codec.newFile();
            for (int i = 0; i < 4_000; i++) { // about 1 MB: written to disk as it grows, then compressed at seal
                String payload = "{\"n\":" + i + ",\"text\":\"" + "x".repeat(200) + "\"}";
                file.append(codec.decode(Fixtures.record(i, payload.getBytes(StandardCharsets.UTF_8), List.of())));
            }
            List<Path> open = bufFiles(dir);
            assertThat(open).isNotEmpty();
            for (Path p : open) assertThat(mode(p)).as("open file %s", p).isEqualTo("rw-------");

            FileBytes sealed = file.finish();
            assertThat(sealed.offHeap()).isTrue();
            List<Path> all = bufFiles(dir);
            assertThat(all).as("the plain file and its compressed copy").hasSizeGreaterThanOrEqualTo(2);
            for (Path p : all) assertThat(mode(p)).as("sealed file %s", p).isEqualTo("rw-------");
            sealed.release();
        }
    }

    @Test
    void a_buffer_directory_that_does_not_exist_yet_is_made_private_too() throws Exception {
        Path configured = base.resolve("var/lib/sink");
        try (BufferDirectory dir = BufferDirectory.open(configured, Duration.ZERO, System::nanoTime)) {
            assertThat(mode(configured)).isEqualTo("rwx------");
            assertThat(mode(base.resolve("var"))).isEqualTo("rwx------");
            assertThat(mode(dir.path())).isEqualTo("rwx------");
        }
    }

    @Test
    void an_existing_buffer_directory_keeps_the_mode_its_owner_gave_it() throws Exception {
        // The system temporary directory (the default) is 1777: it is the sink's own directory in it that is private.
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        try (BufferDirectory dir = BufferDirectory.open(base, Duration.ZERO, System::nanoTime)) {
            assertThat(mode(base)).isEqualTo("rwxr-xr-x");
            assertThat(mode(dir.path())).isEqualTo("rwx------");
        }
    }

    private static List<Path> bufFiles(BufferDirectory dir) throws IOException {
        try (Stream<Path> all = Files.list(dir.path())) {
            return all.filter(p -> p.toString().endsWith(".buf")).toList();
        }
    }
}
