package dev.iggysink.domain.naming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.domain.message.PartitionRef;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ObjectKeyTest {
    /** Seed 000's example key, before the prefix is added. */
    private static final String SEED_KEY =
            "application_logs/api_requests/2026-03-16/14/00000-00000000000000000000-00000000000000000999.jsonl";

    private static String seedPath() {
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse("2026-03-16T14:27:31.123456Z"));
        return PathTemplate.parse("{stream}/{topic}/{date}/{hour}")
                .render(new PartitionRef("application_logs", "api_requests", 0), micros, ZoneOffset.UTC,
                        FieldLookup.NONE, "unknown");
    }

    @ParameterizedTest(name = "prefix [{0}]")
    @CsvSource(delimiter = '|', nullValues = "-", textBlock = """
            # prefix    | expected key
            -           | application_logs/api_requests/2026-03-16/14/00000-00000000000000000000-00000000000000000999.jsonl
            ''          | application_logs/api_requests/2026-03-16/14/00000-00000000000000000000-00000000000000000999.jsonl
            /           | application_logs/api_requests/2026-03-16/14/00000-00000000000000000000-00000000000000000999.jsonl
            iggy/raw    | iggy/raw/application_logs/api_requests/2026-03-16/14/00000-00000000000000000000-00000000000000000999.jsonl
            /iggy/raw/  | iggy/raw/application_logs/api_requests/2026-03-16/14/00000-00000000000000000000-00000000000000000999.jsonl
            iggy/raw//  | iggy/raw/application_logs/api_requests/2026-03-16/14/00000-00000000000000000000-00000000000000000999.jsonl
            """)
    void golden_seed_key_with_and_without_prefix(String prefix, String expected) {
        assertThat(ObjectKey.of(prefix, seedPath(), 0, 0, 999, "jsonl")).isEqualTo(expected);
    }

    @Test
    void the_seed_template_renders_the_seed_key() {
        assertThat(ObjectKey.of(null, seedPath(), 0, 0, 999, "jsonl")).isEqualTo(SEED_KEY);
    }

    @ParameterizedTest(name = "{6}")
    @CsvSource(delimiter = '|', textBlock = """
            /a/b/   | 7      | 12              | 4000                | .json | a/b/00007-00000000000000000012-00000000000000004000.json
            ''      | 3      | 0               | 0                   | bin   | 00003-00000000000000000000-00000000000000000000.bin
            x       | 123456 | 1               | 9223372036854775807 | jsonl | x/123456-00000000000000000001-09223372036854775807.jsonl
            x       | 1      | 5               | 6                   | ''    | x/00001-00000000000000000005-00000000000000000006
            """)
    void pads_partition_to_5_and_offsets_to_20_digits(String path, int partition, long first, long last, String ext,
                                                      String expected) {
        assertThat(ObjectKey.of("", path, partition, first, last, ext)).isEqualTo(expected);
    }

    @Test
    void parse_recovers_partition_range_and_extension() {
        String key = "iggy/raw/a/b/00042-00000000000000000000-00000000000000000999.json.gz";
        assertThat(ObjectKey.parse(key)).contains(new KeyRange(42, 0, 999));
        assertThat(ObjectKey.extension(key)).contains("json.gz");
        assertThat(ObjectKey.parse(ObjectKey.of("p", "a/b", 7, 15, 31, "bin")))
                .contains(new KeyRange(7, 15, 31));
        assertThat(ObjectKey.extension(ObjectKey.of("p", "a", 7, 15, 31, ""))).isEmpty();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            .iggy-sink-probe
            a/b/00000-0000000000000000000-00000000000000000999.jsonl
            a/b/0000-00000000000000000000-00000000000000000999.jsonl
            a/b/00000-00000000000000001000-00000000000000000999.jsonl
            a/b/00000-99999999999999999999-99999999999999999999.jsonl
            a/b/x00000-00000000000000000000-00000000000000000999.jsonl
            a/00000-00000000000000000000-00000000000000000999.jsonl/c
            """)
    void parse_rejects_keys_not_written_by_the_sink(String key) {
        assertThat(ObjectKey.parse(key)).isEmpty();
    }

    @Test
    void rejects_impossible_ranges() {
        assertThatThrownBy(() -> ObjectKey.of("", "a", 0, 5, 4, "bin")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ObjectKey.of("", "a", -1, 0, 4, "bin")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ObjectKey.of("", "a", 0, -1, 4, "bin")).isInstanceOf(IllegalArgumentException.class);
    }
}
