package dev.iggysink.testkit.iggy;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import net.openhft.hashing.LongHashFunction;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

class Xxh32Test {

    @ParameterizedTest(name = "XXH32(\"{0}\") = {1}")
    @CsvSource({
        "'', 02CC5D05",
        "a, 550D7456",
        "abc, 32D153FF",
        "Nobody inspects the spammish repetition, E2293B2F",
    })
    void matches_the_reference_vectors(String input, String expectedHex) {
        int hash = Xxh32.hash(input.getBytes(StandardCharsets.UTF_8));
        assertThat(Integer.toHexString(hash).toUpperCase()).isEqualTo(expectedHex.replaceFirst("^0+", ""));
    }

    @Test
    void hashes_a_slice_like_a_copy() {
        byte[] data = "xxNobody inspects the spammish repetitionyy".getBytes(StandardCharsets.UTF_8);
        assertThat(Xxh32.hash(data, 2, data.length - 4, 0))
                .isEqualTo(Xxh32.hash("Nobody inspects the spammish repetition".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void the_checksum_function_is_xxh3_64_with_seed_zero() {
        // Published XXH3_64bits("") with seed 0, so the broker's checksums use the variant the server uses.
        assertThat(LongHashFunction.xx3().hashBytes(new byte[0])).isEqualTo(0x2D06800538D394C2L);
    }
}
