package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.config.CredentialsConfig;
import dev.iggysink.adapters.config.StorageConfig;
import dev.iggysink.adapters.s3.CredentialSettings;
import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.application.settings.Secret;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The credential sources of the connector file reach the S3 adapters unchanged. */
class SinkAssemblyCredentialsTest {
    @Test
    void every_credential_source_of_the_file_reaches_the_store_settings() {
        CredentialsConfig config = new CredentialsConfig(Optional.of("ops"), Optional.of(Path.of("/etc/aws/creds")),
                Optional.of("arn:aws:iam::123456789012:role/sink"), Optional.of(Secret.of("ext")), "sess",
                Duration.ofMinutes(45), Optional.of("http://127.0.0.1:9000"));
        StorageConfig.S3 s3 = new StorageConfig.S3(StorageConfig.S3Client.MINIO, "bucket", "eu-west-1",
                Optional.empty(), false, Optional.empty(), Optional.empty(), 64L << 20, 8L << 20, Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Map.of(), Duration.ofSeconds(60), config);

        StorageSettings settings = SinkAssembly.s3(s3, 4);

        assertThat(settings.credentials()).isEqualTo(new CredentialSettings(Optional.of("ops"),
                Optional.of(Path.of("/etc/aws/creds")), Optional.of("arn:aws:iam::123456789012:role/sink"),
                Optional.of(Secret.of("ext")), "sess", Duration.ofMinutes(45), Optional.of("http://127.0.0.1:9000")));
    }
}
