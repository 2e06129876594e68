package dev.iggysink.adapters.config;

import dev.iggysink.domain.Seeded;
import static dev.iggysink.domain.Seeded.intBetween;
import static dev.iggysink.domain.Seeded.longBetween;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SizesTest {

    @ParameterizedTest(name = "{0} = {1}")
    @CsvSource(delimiter = '|', value = {
            "8MiB      | 8388608",
            "10MB      | 10000000",
            "1KB       | 1000",
            "1KiB      | 1024",
            "512B      | 512",
            "512       | 512",
            "0         | 0",
            "8 MiB     | 8388608",
            "8mib      | 8388608",
            "8MIB      | 8388608",
            "10mb      | 10000000",
            "1GiB      | 1073741824",
            "5GB       | 5000000000",
            "1TiB      | 1099511627776",
            "1.5KiB    | 1536",
            "1.5B      | 1",
            "' 64MiB ' | 67108864",
    })
    void parses_sizes(String text, long bytes) {
        assertThat(Sizes.parse(text)).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "8 MiBs", "MiB", "-1MiB", "8XB", "8 M iB", "1e3", "9999999PiB", "eight"})
    void rejects_what_is_not_a_size(String text) {
        assertThatThrownBy(() -> Sizes.parse(text)).isInstanceOf(IllegalArgumentException.class);
    }

    @ParameterizedTest(name = "{0} prints as {1}")
    @CsvSource({"8388608, 8MiB", "1000, 1000B", "1536, 1536B", "3072, 3KiB", "0, 0B", "1073741824, 1GiB"})
    void formats_in_the_largest_exact_binary_unit(long bytes, String text) {
        assertThat(Sizes.format(bytes)).isEqualTo(text);
    }

    @Test
    void binary_units_multiply_by_powers_of_1024() {
        String[] units = {"B", "KiB", "MiB", "GiB"};
        Seeded.check(1000, r -> {
            int n = intBetween(r, 0, 1_000_000);
            int power = intBetween(r, 0, 3);
            long expected = n * (1L << (10 * power));
            assertThat(Sizes.parse(n + units[power])).as(n + units[power]).isEqualTo(expected);
            assertThat(Sizes.parse(n + " " + units[power].toLowerCase())).as(n + units[power]).isEqualTo(expected);
        });
    }

    @Test
    void format_and_parse_round_trip() {
        Seeded.check(1000, r -> {
            long bytes = longBetween(r, 0, 1L << 50);
            assertThat(Sizes.parse(Sizes.format(bytes))).as("%d formatted as %s", bytes, Sizes.format(bytes))
                    .isEqualTo(bytes);
        });
    }
}
