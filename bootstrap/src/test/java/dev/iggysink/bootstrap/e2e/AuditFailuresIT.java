package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code audit} when Iggy or the store refuses or is not there: one line that says which and why, exit 3 (2 is for
 * a bad config), never a stack trace.
 */
class AuditFailuresIT {
    private E2eFixture fx;

    @BeforeEach
    void setUp() throws Exception {
        fx = E2eFixture.shared();
        fx.topic("json", 1);
    }

    @AfterEach
    void tearDown() {
        fx.close();
    }

    private Path config(String from, String to) throws IOException {
        Path config = fx.config(List.of("json"), "json", "max_attempts = 1");
        String toml = Files.readString(config, StandardCharsets.UTF_8);
        assertThat(toml).contains(from);
        Files.writeString(config, toml.replace(from, to), StandardCharsets.UTF_8);
        return config;
    }

    private static int closedPort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }

    private void assertOneLine(E2eFixture.AuditResult r, String expected) {
        assertThat(r.exitCode()).as(r.output()).isEqualTo(3);
        assertThat(r.output().strip().lines()).as(r.output()).hasSize(1);
        assertThat(r.output()).startsWith("audit failed: ").contains(expected).doesNotContain("\tat ");
    }

    @Test
    @Timeout(120)
    void iggy_refusing_the_connection() throws Exception {
        int port = closedPort();
        assertOneLine(fx.audit(config("address = \"" + fx.iggy.address() + "\"", "address = \"127.0.0.1:" + port
                + "\"")), "cannot reach Iggy at 127.0.0.1:" + port);
    }

    @Test
    @Timeout(120)
    void a_wrong_iggy_password() throws Exception {
        E2eFixture.AuditResult r = fx.audit(config("password = \"iggy\"", "password = \"wrong-pass-123\""));
        assertOneLine(r, "rejected the credentials of user 'iggy' (wrong password");
        assertThat(r.output()).doesNotContain("wrong-pass-123");
    }

    @Test
    @Timeout(120)
    void a_missing_stream_is_called_a_missing_stream() throws Exception {
        assertOneLine(fx.audit(config("stream = \"" + fx.stream + "\"", "stream = \"nostream\"")),
                "stream 'nostream' does not exist on Iggy at");
    }

    @Test
    @Timeout(120)
    void a_missing_bucket() throws Exception {
        assertOneLine(fx.audit(config("bucket = \"" + fx.bucket + "\"", "bucket = \"no-such-bucket-" + fx.bucket
                + "\"")), "no-such-bucket-" + fx.bucket);
    }

    @Test
    @Timeout(120)
    void wrong_store_credentials() throws Exception {
        assertOneLine(fx.audit(config("secret_access_key = \"" + fx.minio.secretKey() + "\"",
                "secret_access_key = \"not-the-secret\"")), fx.bucket);
    }

    @Test
    @Timeout(120)
    void the_store_down() throws Exception {
        int port = closedPort();
        assertOneLine(fx.audit(config(fx.minio.endpoint().toString(), "http://127.0.0.1:" + port)),
                "127.0.0.1:" + port);
    }
}
