package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.ForwardingObjectStore;
import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.HeldRecords;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.OutputSettings;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.SinkRecord;
import dev.iggysink.domain.naming.ObjectKey;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/**
 * What the recovery reads of an object without metadata ({@link ObjectOffsets#held}): files written by the real
 * encoders, stored in the in-memory store, read back by their first and last record, with the bytes it fetched.
 */
class ObjectOffsetsHeldTest {
    private static final long FIRST = 5_000;
    private static final long SECOND = 1_000_000L;
    /** The last record of json files: nested wrappers where a naive scan of the tail would take them. */
    private static final String DECOY = "{\"a\":[{\"offset\":999999,\"timestamp\":\"x\"},{\"offset\":999998,"
            + "\"timestamp\":\"y\"}],\"s\":\"\\\"{\\\"offset\\\":999997,\"}";

    /** Counts what is read: whole GETs and the bytes of ranged ones. */
    private static final class Counting extends ForwardingObjectStore {
        int wholeGets;
        long rangedBytes;

        Counting(InMemoryObjectStore to) {
            super(to);
        }

        @Override
        public byte[] get(String key) throws StoreException {
            wholeGets++;
            return super.get(key);
        }

        @Override
        public byte[] get(String key, long from, int length) throws StoreException {
            byte[] b = super.get(key, from, length);
            rangedBytes += b.length;
            return b;
        }
    }

    private final InMemoryObjectStore memory = new InMemoryObjectStore();
    private final Counting store = new Counting(memory);

    static Stream<Arguments> everyFormatThatNamesItsRecords() {
        List<Arguments> all = new ArrayList<>();
        for (OutputFormat format : List.of(OutputFormat.JSON_LINES, OutputFormat.JSON_ARRAY)) {
            for (Compression compression : Compression.values()) all.add(Arguments.of(format, compression));
        }
        all.add(Arguments.of(OutputFormat.AVRO, Compression.NONE));
        all.add(Arguments.of(OutputFormat.PARQUET, Compression.NONE));
        return all.stream();
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("everyFormatThatNamesItsRecords")
    void names_the_first_and_last_record_so_an_earlier_life_does_not_match(OutputFormat format,
                                                                          Compression compression) throws Exception {
        StoredObject file = store(format, compression, true, 300, 0);

        HeldRecords held = ObjectOffsets.held(store, file);

        assertThat(held).isInstanceOf(HeldRecords.Held.class);
        HeldRecords.Held h = (HeldRecords.Held) held;
        assertThat(h.first().offset()).isEqualTo(FIRST);
        assertThat(h.last().offset()).isEqualTo(FIRST + 299);
        assertThat(h.first().is(record(FIRST, Fixtures.SEED_MICROS))).isTrue();
        assertThat(h.last().is(record(FIRST + 299, Fixtures.SEED_MICROS))).isTrue();
        // The same offsets a second later: the topic's next life.
        assertThat(h.first().is(record(FIRST, Fixtures.SEED_MICROS + SECOND))).isFalse();
        assertThat(h.last().is(record(FIRST + 299, Fixtures.SEED_MICROS + SECOND))).isFalse();
        assertThat(h.first().is(record(FIRST + 1, Fixtures.SEED_MICROS))).isFalse();
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(OutputFormat.class)
    void a_file_written_without_include_metadata_names_no_records(OutputFormat format) throws Exception {
        StoredObject file = store(format, Compression.NONE, false, 300, 0);

        assertThat(ObjectOffsets.held(store, file)).isInstanceOf(HeldRecords.Unnamed.class);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = OutputFormat.class, names = {"JSON_LINES", "JSON_ARRAY"})
    void of_a_large_json_file_only_the_first_and_last_bytes_are_read(OutputFormat format) throws Exception {
        StoredObject file = store(format, Compression.NONE, true, 5_000, 0);
        assertThat(file.size()).isGreaterThan(4L * ObjectOffsets.TAIL);

        HeldRecords.Held h = (HeldRecords.Held) ObjectOffsets.held(store, file);

        assertThat(h.first().offset()).isEqualTo(FIRST);
        assertThat(h.last().offset()).isEqualTo(FIRST + 4_999);
        assertThat(store.wholeGets).isZero();
        assertThat(store.rangedBytes).isLessThanOrEqualTo(ObjectOffsets.HEAD + ObjectOffsets.TAIL);
    }

    @ParameterizedTest(name = "{0}")
    @EnumSource(value = OutputFormat.class, names = {"JSON_LINES", "JSON_ARRAY"})
    void a_last_record_longer_than_the_tail_is_found_in_the_whole_file(OutputFormat format) throws Exception {
        StoredObject file = store(format, Compression.NONE, true, 5_000, 2 * ObjectOffsets.TAIL);

        HeldRecords.Held h = (HeldRecords.Held) ObjectOffsets.held(store, file);

        assertThat(h.last().offset()).isEqualTo(FIRST + 4_999);
        assertThat(h.last().is(record(FIRST + 4_999, Fixtures.SEED_MICROS))).isTrue();
        assertThat(store.wholeGets).isEqualTo(1);
    }

    @Test
    void damaged_content_of_a_format_that_names_its_records_is_unreadable_not_unnamed() throws Exception {
        StoredObject file = store(OutputFormat.JSON_LINES, Compression.GZIP, true, 300, 0);
        byte[] whole = memory.get(file.key());
        memory.seed(file.key(), Arrays.copyOf(whole, whole.length / 2), java.util.Map.of());

        HeldRecords held = ObjectOffsets.held(store, new StoredObject(file.key(), whole.length / 2));

        assertThat(held).isInstanceOf(HeldRecords.Unreadable.class);
        assertThat(((HeldRecords.Unreadable) held).why()).startsWith("damaged gzip content");
    }

    private static SinkRecord record(long offset, long micros) {
        return new SinkRecord(Fixtures.record(offset, new byte[0], List.of()).partition(), offset, micros, micros,
                MessageId.ZERO, List.of(), new byte[0]);
    }

    /**
     * Writes {@code count} records from {@link #FIRST} and stores the file; json payloads are small objects, the
     * last one the decoy, or {@code longLast} bytes long when that is not 0.
     */
    private StoredObject store(OutputFormat format, Compression compression, boolean metadata, int count,
                               int longLast) throws Exception {
        OutputSettings output = new OutputSettings("", "{stream}/{topic}", format, compression, metadata, true,
                ZoneId.of("UTC"), Optional.of(WideSchema.SCHEMA), "snappy", "null", "__missing__");
        RecordCodec codec = Fixtures.codec(PayloadSchema.JSON, output);
        boolean json = format == OutputFormat.JSON_LINES || format == OutputFormat.JSON_ARRAY
                || format == OutputFormat.RAW;
        FileEncoder file = codec.newFile();
        for (int i = 0; i < count; i++) {
            String payload = !json ? (i % 2 == 0 ? WideSchema.FIRST : WideSchema.SECOND)
                    : i < count - 1 ? "{\"i\":" + i + "}"
                    : longLast > 0 ? "{\"s\":\"" + "x".repeat(longLast) + "\"}" : DECOY;
            file.append(codec.decode(Fixtures.record(FIRST + i, payload.getBytes(StandardCharsets.UTF_8),
                    List.of())));
        }
        byte[] bytes = file.finish().toByteArray();
        String key = ObjectKey.of("out", "application_logs/api_requests", 1, FIRST, FIRST + count - 1,
                codec.extension());
        memory.seed(key, bytes, java.util.Map.of());
        return new StoredObject(key, bytes.length);
    }
}
