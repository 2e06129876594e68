package dev.iggysink.domain.naming;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.message.PartitionRef;
import java.time.ZoneId;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeyRulesTest {
    private static final ZoneId UTC = ZoneId.of("UTC");
    private static final String SANITISED = "names are sanitised: every character other than ASCII letters, digits, "
            + "'.', '_' and '-' becomes '_'";

    @ParameterizedTest(name = "[{0}] -> [{1}]")
    @CsvSource(delimiter = '|', emptyValue = "", nullValues = "NONE", textBlock = """
            in/../out       | ..
            in/./out        | .
            in//out         | ''
            ..              | ..
            .               | .
            a/              | ''
            /a              | ''
            ''              | NONE
            in/..x/out      | NONE
            in/.hidden/out  | NONE
            in/.../out      | NONE
            a.b/c           | NONE
            """)
    void a_segment_that_is_empty_dot_or_dot_dot_is_refused(String path, String bad) {
        assertThat(KeyRules.badSegment(path)).isEqualTo(java.util.Optional.ofNullable(bad));
    }

    @Test
    void the_problem_names_the_path_and_the_segment() {
        assertThat(KeyRules.segmentProblem("in/../out")).hasValue(
                "\"in/../out\" has a \"..\" segment (object keys must not have empty, . or .. segments)");
        assertThat(KeyRules.segmentProblem("in//out")).hasValue(
                "\"in//out\" has an empty segment (object keys must not have empty, . or .. segments)");
        assertThat(KeyRules.segmentProblem("in/Pune/out")).isEmpty();
    }

    @Test
    void field_values_that_sanitise_to_a_refused_segment_render_one() {
        // The sanitiser keeps '.', so "..", "." and "" reach the key as they are; the rule must catch them.
        PathTemplate template = PathTemplate.parse("in/{field:city}/out");
        PartitionRef p = new PartitionRef("s", "t", 0);
        for (String value : List.of("..", ".", "")) {
            String path = template.render(p, 0, UTC, f -> java.util.Optional.of(value), "__missing__");
            assertThat(KeyRules.badSegment(ObjectKey.of("", path, 0, 0, 0, "jsonl"))).as(value).isPresent();
        }
        // So does a missing field whose placeholder is one.
        String path = template.render(p, 0, UTC, FieldLookup.NONE, "..");
        assertThat(KeyRules.badSegment(path)).hasValue("..");
        // Slashes at both ends of a rendered path are dropped from the key: an empty field there is no segment.
        String edge = PathTemplate.parse("{field:city}/out").render(p, 0, UTC, f -> java.util.Optional.of(""), "x");
        assertThat(KeyRules.badSegment(ObjectKey.of("", edge, 0, 0, 0, "jsonl"))).isEmpty();
    }

    @Test
    void topics_whose_names_sanitise_alike_collide() {
        assertThat(KeyRules.collisions("{stream}/{topic}/{date}", UTC, "__missing__", List.of(
                new PartitionRef("app", "a b", 0), new PartitionRef("app", "a_b", 3),
                new PartitionRef("app", "c", 0))))
                .containsExactly("stream \"app\" topic \"a b\" and stream \"app\" topic \"a_b\" would write the same "
                        + "object keys (" + SANITISED + ")");
    }

    @Test
    void a_template_without_stream_or_topic_makes_pairs_collide_and_says_which_variable_is_missing() {
        assertThat(KeyRules.collisions("{topic}/{date}", UTC, "__missing__", List.of(
                new PartitionRef("a", "errors", 0), new PartitionRef("b", "errors", 0))))
                .containsExactly("stream \"a\" topic \"errors\" and stream \"b\" topic \"errors\" would write the "
                        + "same object keys (the path template has no {stream})");
        assertThat(KeyRules.collisions("{stream}/{date}", UTC, "__missing__", List.of(
                new PartitionRef("a", "x", 0), new PartitionRef("a", "y", 0), new PartitionRef("a", "z", 0))))
                .containsExactly(
                        "stream \"a\" topic \"x\" and stream \"a\" topic \"y\" would write the same object keys (the "
                                + "path template has no {topic})",
                        "stream \"a\" topic \"x\" and stream \"a\" topic \"z\" would write the same object keys (the "
                                + "path template has no {topic})");
    }

    @Test
    void distinct_pairs_and_a_pair_listed_twice_do_not_collide() {
        assertThat(KeyRules.collisions("{stream}/{topic}", UTC, "__missing__", List.of(
                new PartitionRef("a", "x", 0), new PartitionRef("b", "x", 0), new PartitionRef("a", "x", 1))))
                .isEmpty();
    }

    @Test
    void quote_escapes_control_characters_and_shortens_long_values() {
        assertThat(KeyRules.quote("a\u0000b")).isEqualTo("\"a\\u0000b\"");
        assertThat(KeyRules.quote("x".repeat(100))).isEqualTo("\"" + "x".repeat(40) + "...\" (100 characters)");
    }

    @Test
    void the_key_limit_is_s3s_1024_bytes_counted_in_utf8_not_characters() {
        // The config check (adapters-config ObjectKeys) and the pipeline (FileLayout) both measure with these two.
        assertThat(KeyRules.MAX_KEY_BYTES).isEqualTo(1024);
        assertThat(KeyRules.keyBytes("a".repeat(1024))).isEqualTo(1024);
        assertThat(KeyRules.keyBytes("\u00e9".repeat(512))).isEqualTo(1024);
        assertThat(KeyRules.keyBytes("\u00e9".repeat(513))).isEqualTo(1026);
        assertThat(KeyRules.keyBytes("\uD83D\uDE00")).as("a surrogate pair is one 4-byte character").isEqualTo(4);
    }
}
