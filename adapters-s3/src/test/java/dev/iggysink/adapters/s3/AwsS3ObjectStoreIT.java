package dev.iggysink.adapters.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import dev.iggysink.adapters.s3.aws.FilePutHttpClient;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.testkit.s3.FaultProxy;

import software.amazon.awssdk.services.s3.model.ChecksumMode;

/** {@link dev.iggysink.adapters.s3.aws.AwsS3ObjectStore} on a real MinIO. */
class AwsS3ObjectStoreIT extends MinioContract {

    @Override
    protected StorageClient client() {
        return StorageClient.AWS;
    }

    @Test
    void over_http_a_put_goes_unsigned_with_a_crc32c_the_store_keeps_even_empty_and_parts_stay_signed()
            throws Exception {
        byte[] small = bytes(100_000, 5);
        try (FaultProxy proxy = FaultProxy.start(minio().endpoint());
             ObjectStore viaProxy = throughProxy(proxy, Duration.ofSeconds(30))) {
            viaProxy.put(prefix + "small", chunked(small), "text/plain");
            viaProxy.put(prefix + "big", chunked(bytes((int) THRESHOLD + 1, 5)), "text/plain");
            viaProxy.probe();

            String put = head(proxy, "PUT /" + bucket() + "/" + prefix + "small ");
            assertThat(header(put, "x-amz-content-sha256")).contains("UNSIGNED-PAYLOAD");
            assertThat(header(put, "x-amz-checksum-crc32c")).contains(crc32c(small));
            assertThat(header(put, "authorization")).hasValueSatisfying(a ->
                    assertThat(a).contains("x-amz-checksum-crc32c").contains("x-amz-content-sha256"));

            String part = head(proxy, "partNumber=1");
            assertThat(header(part, "x-amz-content-sha256")).hasValueSatisfying(h ->
                    assertThat(h).matches("[0-9a-f]{64}"));
            assertThat(header(part, "x-amz-checksum-crc32c")).isEmpty();
            // the probe's empty body too, so that the start-up makes no SDK client (ADR 0021)
            String probe = head(proxy, "PUT /" + bucket() + "/.iggy-sink-probe");
            assertThat(header(probe, "x-amz-content-sha256")).contains("UNSIGNED-PAYLOAD");
            assertThat(header(probe, "x-amz-checksum-crc32c")).contains("AAAAAA==");
            assertThat(header(probe, "amz-sdk-invocation-id")).isEmpty();
        }
        assertThat(minio().client().headObject(b -> b.bucket(bucket()).key(prefix + "small")
                .checksumMode(ChecksumMode.ENABLED)).checksumCRC32C())
                .as("the store verified and kept the checksum").isEqualTo(crc32c(small));
        assertThat(store().get(prefix + "small")).isEqualTo(small);
    }

    @Test
    void over_http_a_whole_object_put_is_built_and_signed_without_the_sdks_pipeline_and_a_part_is_not()
            throws Exception {
        byte[] small = bytes(70_000, 11);
        try (FaultProxy proxy = FaultProxy.start(minio().endpoint());
             ObjectStore viaProxy = throughProxy(proxy, Duration.ofSeconds(30))) {
            viaProxy.put(prefix + "plain", chunked(small), "application/x-ndjson");
            viaProxy.put(prefix + "parts", chunked(bytes((int) THRESHOLD + 1, 12)), "text/plain");

            String put = head(proxy, "PUT /" + bucket() + "/" + prefix + "plain ");
            assertThat(header(put, "user-agent")).contains("iggy-s3-sink");
            assertThat(header(put, "amz-sdk-invocation-id")).as("no SDK call behind it").isEmpty();
            assertThat(header(put, "expect")).contains("100-continue");
            assertThat(header(put, "content-type")).contains("application/x-ndjson");
            assertThat(header(put, "content-length")).contains("70000");
            assertThat(header(put, "x-amz-date")).hasValueSatisfying(d -> assertThat(d).matches("\\d{8}T\\d{6}Z"));
            assertThat(header(put, "authorization")).hasValueSatisfying(a -> assertThat(a)
                    .startsWith("AWS4-HMAC-SHA256 Credential=" + minio().accessKey() + "/")
                    .contains("/" + minio().region() + "/s3/aws4_request"));

            String part = head(proxy, "partNumber=1");
            assertThat(header(part, "amz-sdk-invocation-id")).as("parts go through the SDK").isPresent();
        }
        assertThat(store().get(prefix + "plain")).isEqualTo(small);
        assertThat(minio().client().headObject(b -> b.bucket(bucket()).key(prefix + "plain")).contentType())
                .isEqualTo("application/x-ndjson");
    }

    @Test
    void over_http_user_metadata_is_sent_and_signed_by_the_hand_written_put_and_by_the_sdk_elsewhere()
            throws Exception {
        Map<String, String> meta = Map.of("iggy-offsets", "0-9", "iggy-first", "0/5/6");
        try (FaultProxy proxy = FaultProxy.start(minio().endpoint());
             ObjectStore viaProxy = throughProxy(proxy, Duration.ofSeconds(30))) {
            viaProxy.put(prefix + "plain", chunked(bytes(5000, 60)), "application/x-ndjson", meta);
            viaProxy.put(prefix + "parts", chunked(bytes((int) THRESHOLD + 1, 61)), "text/plain", meta);
            assertThat(viaProxy.create(prefix + "claim", new byte[] {1}, meta)).isTrue();
            assertThat(viaProxy.create(prefix + "claim", new byte[] {2}, Map.of())).isFalse();

            String put = head(proxy, "PUT /" + bucket() + "/" + prefix + "plain ");
            assertThat(header(put, "amz-sdk-invocation-id")).as("the hand-written PUT").isEmpty();
            assertThat(header(put, "x-amz-meta-iggy-offsets")).contains("0-9");
            assertThat(header(put, "x-amz-meta-iggy-first")).contains("0/5/6");
            assertThat(header(put, "authorization")).hasValueSatisfying(a -> assertThat(a)
                    .contains(";x-amz-meta-iggy-first;x-amz-meta-iggy-offsets,"));

            String start = head(proxy, "POST /" + bucket() + "/" + prefix + "parts?uploads");
            assertThat(header(start, "x-amz-meta-iggy-offsets")).contains("0-9");
            assertThat(header(head(proxy, "partNumber=1"), "x-amz-meta-iggy-offsets"))
                    .as("parts inherit it").isEmpty();

            String conditional = head(proxy, "PUT /" + bucket() + "/" + prefix + "claim ");
            assertThat(header(conditional, "if-none-match")).contains("*");
            assertThat(header(conditional, "authorization")).hasValueSatisfying(a -> assertThat(a)
                    .contains("if-none-match").contains("x-amz-meta-iggy-offsets"));
        }
        for (String key : List.of("plain", "parts", "claim")) {
            assertThat(store().metadata(prefix + key)).as(key).contains(meta);
        }
        assertThat(store().get(prefix + "claim")).containsExactly(1);
    }

    @Test
    void over_http_a_file_body_goes_from_the_file_to_the_socket_without_the_sdks_stream(@TempDir Path dir)
            throws Exception {
        byte[] small = bytes(300_000, 7);
        byte[] big = bytes((int) THRESHOLD + 12_345, 8);
        CountingFile smallFile = CountingFile.of(dir.resolve("small"), small);
        CountingFile bigFile = CountingFile.of(dir.resolve("big"), big);

        CRC32C crc = new CRC32C();
        crc.update(small);
        store().put(prefix + "small", FileBytes.ofSource(smallFile, small.length, crc.getValue()), "text/plain");
        store().put(prefix + "big", FileBytes.ofSource(bigFile, big.length), "text/plain");
        assertThatThrownBy(() -> store().put(prefix + "bad", FileBytes.ofSource(smallFile, small.length,
                crc.getValue() ^ 1), "text/plain"))
                .as("the writer's checksum is the one sent, and the store checks it")
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.retryable()).isTrue());
        assertThat(minio().client().listObjectsV2(b -> b.bucket(bucket()).prefix(prefix + "bad")).contents())
                .isEmpty();

        assertThat(store().get(prefix + "small")).isEqualTo(small);
        assertThat(store().get(prefix + "big")).isEqualTo(big);
        assertThat(smallFile.reads.get()).as("no read for its checksum, which its writer gave").isZero();
        if (FilePutHttpClient.proxyConfigured(System.getenv(), System.getProperties())) {
            // A proxy in the environment: bodies go through Apache's client, which uses it.
            assertThat(smallFile.transfers.get() + bigFile.transfers.get()).isZero();
            assertThat(smallFile.streams.get()).isPositive();
            return;
        }
        assertThat(smallFile.transfers.get()).as("the PUTs' bodies went by transferTo").isEqualTo(2);
        assertThat(smallFile.streams.get()).as("nobody read the body through a stream").isZero();
        int parts = (int) ((big.length + PART_SIZE - 1) / PART_SIZE);
        assertThat(bigFile.transfers.get()).as("each part's body went by transferTo").isEqualTo(parts);
    }

    /** A local file as a body source, counting how its bytes were taken. */
    private static final class CountingFile implements FileBytes.Source {
        final Path path;
        final AtomicInteger transfers = new AtomicInteger();
        final AtomicInteger streams = new AtomicInteger();
        final AtomicInteger reads = new AtomicInteger();

        private CountingFile(Path path) {
            this.path = path;
        }

        static CountingFile of(Path path, byte[] content) throws IOException {
            Files.write(path, content);
            return new CountingFile(path);
        }

        @Override
        public void read(long offset, long length, FileBytes.ChunkVisitor visitor) throws IOException {
            reads.incrementAndGet();
            byte[] all = Files.readAllBytes(path);
            visitor.accept(all, (int) offset, (int) length);
        }

        @Override
        public InputStream open(long offset, long length) {
            streams.incrementAndGet();
            try {
                return new ByteArrayInputStream(Files.readAllBytes(path), (int) offset, (int) length);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Override
        public void transferTo(long offset, long length, WritableByteChannel target) throws IOException {
            transfers.incrementAndGet();
            try (FileChannel file = FileChannel.open(path)) {
                long at = offset;
                while (at < offset + length) at += file.transferTo(at, offset + length - at, target);
            }
        }

        @Override
        public void discard() {
        }
    }

    private static String head(FaultProxy proxy, String fragment) {
        List<String> heads = proxy.requestHeads().stream().filter(h -> h.lines().findFirst().orElse("")
                .contains(fragment)).toList();
        assertThat(heads).as("requests matching %s", fragment).isNotEmpty();
        return heads.get(0);
    }

    private static Optional<String> header(String head, String name) {
        return head.lines().skip(1)
                .filter(l -> l.toLowerCase(Locale.ROOT).startsWith(name + ":"))
                .map(l -> l.substring(l.indexOf(':') + 1).strip())
                .findFirst();
    }

    private static String crc32c(byte[] content) {
        CRC32C crc = new CRC32C();
        crc.update(content);
        long v = crc.getValue();
        return Base64.getEncoder().encodeToString(new byte[] {
                (byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v});
    }
}
