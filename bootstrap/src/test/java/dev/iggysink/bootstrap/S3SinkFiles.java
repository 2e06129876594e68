package dev.iggysink.bootstrap;

import dev.iggysink.testkit.s3.MinioServer;

/** Connector files of an S3 sink for the tests that run one in the test JVM against MinIO and the in-JVM broker. */
final class S3SinkFiles {
    private S3SinkFiles() {
    }

    /**
     * The Rust sink's header, one stream of JSON from {@code topic} read by {@code group}, a [plugin_config] on
     * {@code bucket} of {@code minio} that retries quickly and cuts files by count; {@code extra} adds lines to the
     * [plugin_config] (and may open further tables, such as [admin]).
     */
    static String text(String iggyAddress, String stream, String topic, String group, MinioServer minio,
                       String bucket, String extra) {
        return """
                type = "sink"
                key = "s3"
                enabled = true
                version = 0
                name = "S3 sink"
                path = "target/release/libiggy_connector_s3_sink"

                [iggy]
                address = "%s"
                username = "iggy"
                password = "iggy"

                [[streams]]
                stream = "%s"
                topics = ["%s"]
                schema = "json"
                batch_length = 1000
                poll_interval = "5ms"
                consumer_group = "%s"

                [plugin_config]
                bucket = "%s"
                region = "us-east-1"
                endpoint = "%s"
                access_key_id = "%s"
                secret_access_key = "%s"
                retry_delay = "100ms"
                shutdown_timeout = "20s"
                file_rotation = "messages"
                """.formatted(iggyAddress, stream, topic, group, bucket, minio.endpoint(), minio.accessKey(),
                minio.secretKey()) + extra;
    }
}
