package dev.iggysink.adapters.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class SuggestionsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({"bukcet, bucket, 1", "bucket, bucket, 0", "regoin, region, 1", "max_file_sise, max_file_size, 1",
            "prefx, prefix, 1", "abc, xyz, 3"})
    void measures_edits_with_transpositions(String a, String b, int distance) {
        assertThat(Suggestions.distance(a, b)).isEqualTo(distance);
    }

    @Test
    void suggests_the_closest_key_within_two_edits_only() {
        List<String> known = ObjectSinkKeys.NAMES;
        assertThat(Suggestions.closest("bukcet", known)).contains("bucket");
        assertThat(Suggestions.closest("max_retrys", known)).contains("max_retries");
        assertThat(Suggestions.closest("completely_different", known)).isEmpty();
    }
}
