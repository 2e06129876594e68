package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.port.out.StoreException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.apache.iceberg.exceptions.AlreadyExistsException;
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class StoreFileIOTest {
    private final Map<String, InMemoryObjectStore> buckets = new HashMap<>();

    private static Map<String, String> served() {
        return Map.of("s3.endpoint", "http://127.0.0.1:9000", "s3.path-style-access", "true",
                "s3.access-key-id", "key", "s3.secret-access-key", "secret", "client.region", "us-east-1",
                "warehouse", "s3://lake/warehouse", "uri", "jdbc:sqlite:file:catalog.db");
    }

    private StoreFileIO io() {
        StoreFileIO.useStores((bucket, properties) -> buckets.computeIfAbsent(bucket, b -> new InMemoryObjectStore()));
        StoreFileIO io = new StoreFileIO();
        io.initialize(served());
        return io;
    }

    @AfterEach
    void unregister() {
        StoreFileIO.useStores(null);
    }

    @Test
    void serves_the_keys_the_sink_sets_and_nothing_it_would_have_to_ignore() {
        assertThat(StoreFileIO.serves(served())).isTrue();
        Map<String, String> vended = new HashMap<>(served());
        vended.put("s3.session-token", "token");
        assertThat(StoreFileIO.serves(vended)).as("a session token a REST catalog vends").isFalse();
        Map<String, String> encrypted = new HashMap<>(served());
        encrypted.put("s3.sse.type", "kms");
        assertThat(StoreFileIO.serves(encrypted)).isFalse();
        Map<String, String> pool = new HashMap<>(served());
        pool.put("http-client.apache.max-connections", "10");
        assertThat(StoreFileIO.serves(pool)).isFalse();
        Map<String, String> noRegion = new HashMap<>(served());
        noRegion.remove("client.region");
        assertThat(StoreFileIO.serves(noRegion)).as("the region comes from the SDK's chain then").isFalse();
        Map<String, String> halfPair = new HashMap<>(served());
        halfPair.remove("s3.secret-access-key");
        assertThat(StoreFileIO.serves(halfPair)).isFalse();
        Map<String, String> sigv4 = new HashMap<>(served());
        sigv4.put("rest.sigv4-enabled", "true");
        assertThat(StoreFileIO.serves(sigv4)).as("S3 Tables, Glue's REST endpoint").isFalse();
        Map<String, String> glue = new HashMap<>(served());
        glue.put("client.factory", Apache5AwsClientFactory.class.getName());
        assertThat(StoreFileIO.serves(glue)).as("Glue").isFalse();
        Map<String, String> chain = new HashMap<>(served());
        chain.remove("s3.secret-access-key");
        chain.remove("s3.access-key-id");
        assertThat(StoreFileIO.serves(chain)).as("no key pair: the AWS credential chain").isTrue();
    }

    @Test
    void without_stores_registered_everything_goes_to_s3_file_io() {
        StoreFileIO io = new StoreFileIO();
        io.initialize(served());
        assertThat(io.throughStore()).isFalse();
        io.close();
    }

    @Test
    void names_bucket_and_key_of_every_s3_scheme() {
        assertThat(StoreFileIO.bucket("s3://lake/warehouse/db/t/metadata/v1.json")).isEqualTo("lake");
        assertThat(StoreFileIO.key("s3://lake/warehouse/db/t/metadata/v1.json"))
                .isEqualTo("warehouse/db/t/metadata/v1.json");
        assertThat(StoreFileIO.key("s3a://lake/a")).isEqualTo("a");
        assertThat(StoreFileIO.bucket("s3n://other/a/b")).isEqualTo("other");
        assertThatThrownBy(() -> StoreFileIO.key("gs://lake/a")).hasMessageContaining("gs://lake/a");
        assertThatThrownBy(() -> StoreFileIO.key("s3://lake/")).hasMessageContaining("with a key");
        assertThatThrownBy(() -> StoreFileIO.key("s3://lake")).hasMessageContaining("with a key");
    }

    @Test
    void writes_a_file_as_one_object_when_its_stream_closes() throws IOException {
        StoreFileIO io = io();
        assertThat(io.throughStore()).isTrue();
        PositionOutputStream out = io.newOutputFile("s3://lake/w/a.avro").create();
        out.write("hello ".getBytes(StandardCharsets.UTF_8));
        out.write('w');
        out.write("orld".getBytes(StandardCharsets.UTF_8));
        assertThat(out.getPos()).isEqualTo(11);
        assertThat(buckets.get("lake").objects()).as("nothing before the close").isEmpty();
        out.close();
        out.close();
        assertThat(new String(buckets.get("lake").objects().get("w/a.avro"), StandardCharsets.UTF_8))
                .isEqualTo("hello world");
        assertThat(buckets.get("lake").putAttempts()).as("closed twice, put once").isEqualTo(1);
    }

    @Test
    void create_refuses_a_location_that_exists_and_create_or_overwrite_replaces_it() throws IOException {
        StoreFileIO io = io();
        try (PositionOutputStream out = io.newOutputFile("s3://lake/w/v1.json").create()) {
            out.write(1);
        }
        assertThatThrownBy(() -> io.newOutputFile("s3://lake/w/v1.json").create())
                .isInstanceOf(AlreadyExistsException.class).hasMessageContaining("s3://lake/w/v1.json");
        try (PositionOutputStream out = io.newOutputFile("s3://lake/w/v1.json").createOrOverwrite()) {
            out.write(2);
        }
        assertThat(buckets.get("lake").objects().get("w/v1.json")).containsExactly(2);
    }

    @Test
    void reads_back_what_it_wrote_across_chunks_with_seeks() throws IOException {
        StoreFileIO io = io();
        byte[] content = new byte[StoreFileIO.CHUNK * 2 + 12_345];
        new Random(7).nextBytes(content);
        try (PositionOutputStream out = io.newOutputFile("s3://lake/w/data.parquet").createOrOverwrite()) {
            out.write(content, 0, 100);
            out.write(content, 100, content.length - 100);
        }
        InputFile in = io.newInputFile("s3://lake/w/data.parquet");
        assertThat(in.getLength()).as("from a listing: longer than a chunk").isEqualTo(content.length);
        try (SeekableInputStream stream = in.newStream()) {
            assertThat(stream.readAllBytes()).isEqualTo(content);
            assertThat(stream.read()).isEqualTo(-1);
            // a footer read, as Parquet's reader starts: the last 8 bytes, then back to a column chunk
            stream.seek(content.length - 8);
            byte[] tail = new byte[8];
            assertThat(stream.read(tail, 0, 8)).isEqualTo(8);
            assertThat(tail).isEqualTo(java.util.Arrays.copyOfRange(content, content.length - 8, content.length));
            stream.seek(StoreFileIO.CHUNK - 3);
            byte[] across = new byte[10];
            int n = 0;
            while (n < across.length) n += stream.read(across, n, across.length - n);
            assertThat(across).isEqualTo(java.util.Arrays.copyOfRange(content, StoreFileIO.CHUNK - 3,
                    StoreFileIO.CHUNK + 7));
            assertThat(stream.getPos()).isEqualTo(StoreFileIO.CHUNK + 7);
            assertThat(stream.read()).isEqualTo(content[StoreFileIO.CHUNK + 7] & 0xff);
        }
        assertThat(io.newInputFile("s3://lake/w/data.parquet", content.length).getLength())
                .isEqualTo(content.length);
    }

    @Test
    void a_small_file_is_one_get_for_its_length_and_its_bytes() throws IOException, StoreException {
        StoreFileIO io = io();
        byte[] content = "{\"format-version\":2}".getBytes(StandardCharsets.UTF_8);
        try (PositionOutputStream out = io.newOutputFile("s3://lake/w/m.avro").createOrOverwrite()) {
            out.write(content);
        }
        InMemoryObjectStore store = buckets.get("lake");
        InputFile in = io.newInputFile("s3://lake/w/m.avro");
        assertThat(in.getLength()).isEqualTo(content.length);
        store.down(new StoreException("down", true, 503, null, null));
        try (SeekableInputStream stream = in.newStream()) {
            assertThat(stream.readAllBytes()).as("read from the chunk the length came with").isEqualTo(content);
        } finally {
            store.up();
        }
        assertThat(store.listCalls()).isZero();
    }

    @Test
    void a_missing_file_is_not_found_and_a_failing_store_names_the_location() {
        StoreFileIO io = io();
        assertThat(io.newInputFile("s3://lake/w/none").exists()).isFalse();
        assertThatThrownBy(() -> io.newInputFile("s3://lake/w/none").getLength())
                .isInstanceOf(NotFoundException.class).hasMessageContaining("s3://lake/w/none");
        assertThatThrownBy(() -> io.newInputFile("s3://lake/w/none").newStream().read())
                .isInstanceOf(NotFoundException.class);
        io.newOutputFile("s3://lake/w/x"); // the bucket's store
        buckets.get("lake").down(new StoreException("503 SlowDown", true, 503, null, null));
        assertThatThrownBy(() -> io.newInputFile("s3://lake/w/x").newStream().read())
                .isInstanceOf(IOException.class).hasMessageContaining("s3://lake/w/x")
                .hasRootCauseInstanceOf(StoreException.class);
        assertThatThrownBy(() -> io.deleteFile("s3://lake/w/x")).hasMessageContaining("s3://lake/w/x")
                .hasRootCauseInstanceOf(StoreException.class);
        assertThatThrownBy(() -> {
            try (PositionOutputStream out = io.newOutputFile("s3://lake/w/x").createOrOverwrite()) {
                out.write(1);
            }
        }).isInstanceOf(IOException.class).hasMessageContaining("s3://lake/w/x");
    }

    @Test
    void each_bucket_has_its_store_and_deletes_go_to_it() throws IOException {
        StoreFileIO io = io();
        for (String location : List.of("s3://lake/a", "s3://other/b")) {
            try (PositionOutputStream out = io.newOutputFile(location).createOrOverwrite()) {
                out.write(1);
            }
        }
        assertThat(buckets.keySet()).containsExactlyInAnyOrder("lake", "other");
        io.deleteFile("s3://other/b");
        io.deleteFile("s3://other/never-there");
        assertThat(buckets.get("other").objects()).isEmpty();
        assertThat(buckets.get("lake").objects()).containsKey("a");
    }

    @Test
    void a_data_file_goes_up_from_its_buffer_as_one_put() throws IOException {
        StoreFileIO io = io();
        FileBuffer buffer = new FileBuffer("memory:x");
        byte[] content = new byte[40_000];
        new Random(3).nextBytes(content);
        try (PositionOutputStream out = buffer.createOrOverwrite()) {
            out.write(content);
        }
        io.put("s3://lake/w/data/f.parquet", buffer.bytes());
        assertThat(buckets.get("lake").objects().get("w/data/f.parquet")).isEqualTo(content);
    }
}
