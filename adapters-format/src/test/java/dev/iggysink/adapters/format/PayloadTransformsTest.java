package dev.iggysink.adapters.format;

import static dev.iggysink.adapters.format.Fixtures.codec;
import static dev.iggysink.adapters.format.Fixtures.jsonLines;
import static dev.iggysink.adapters.format.Fixtures.payloadOf;
import static dev.iggysink.adapters.format.Fixtures.record;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.adapters.format.payload.PayloadTransforms;
import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.Compression;
import dev.iggysink.application.settings.OutputFormat;
import dev.iggysink.application.settings.PayloadSchema;
import dev.iggysink.application.settings.TransformSettings;
import dev.iggysink.application.settings.TransformSettings.Computed;
import dev.iggysink.application.settings.TransformSettings.Condition;
import dev.iggysink.application.settings.TransformSettings.FieldPattern;
import dev.iggysink.application.settings.TransformSettings.FieldValue;
import dev.iggysink.application.settings.TransformSettings.KeyMatch;
import dev.iggysink.application.settings.TransformSettings.ValueMatch;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class PayloadTransformsTest {

    private static String run(String payload, TransformSettings... transforms) throws BadRecordException {
        return payloadOf(codec(PayloadSchema.JSON, jsonLines(false, false), transforms), record(payload));
    }

    private static FieldValue fixed(String key, Object value) {
        return new FieldValue(key, Optional.of(value), Optional.empty());
    }

    private static FieldValue computed(String key, Computed kind) {
        return new FieldValue(key, Optional.empty(), Optional.of(kind));
    }

    private static FieldPattern pattern(KeyMatch key, String operand, ValueMatch value, Object... operands) {
        return new FieldPattern(Optional.ofNullable(key), Optional.ofNullable(operand), Optional.ofNullable(value),
                List.of(operands));
    }

    @Test
    void add_fields_inserts_static_values_of_every_type_and_overwrites_existing_keys() throws BadRecordException {
        var add = new TransformSettings.AddFields(List.of(fixed("s", "x"), fixed("n", 42L), fixed("d", 2.5),
                fixed("big", new BigDecimal("7")), fixed("z", TransformSettings.JSON_NULL), fixed("a", true),
                fixed("m", Map.of("k", List.of(1L, "two")))));
        assertThat(run("{\"a\":1}", add))
                .isEqualTo("{\"a\":true,\"big\":7,\"d\":2.5,\"m\":{\"k\":[1,\"two\"]},\"n\":42,\"s\":\"x\",\"z\":null}");
    }

    @Test
    void add_fields_computes_values_from_the_injected_clock() throws BadRecordException {
        var add = new TransformSettings.AddFields(List.of(computed("dt", Computed.DATE_TIME),
                computed("ns", Computed.TIMESTAMP_NANOS), computed("us", Computed.TIMESTAMP_MICROS),
                computed("ms", Computed.TIMESTAMP_MILLIS), computed("s", Computed.TIMESTAMP_SECONDS)));
        long secs = Instant.parse("2026-03-16T14:02:31Z").getEpochSecond();
        assertThat(run("{}", add)).isEqualTo("{\"dt\":\"2026-03-16T14:02:31.500+00:00\",\"ms\":" + (secs * 1000 + 500)
                + ",\"ns\":" + (secs * 1_000_000_000L + 500_000_000L) + ",\"s\":" + secs
                + ",\"us\":" + (secs * 1_000_000L + 500_000L) + "}");
    }

    @Test
    void uuid_values_are_lowercase_and_v7_carries_the_clock_milliseconds() throws BadRecordException {
        var add = new TransformSettings.AddFields(List.of(computed("v4", Computed.UUID_V4),
                computed("v7", Computed.UUID_V7)));
        var record = Fixtures.decoded(codec(PayloadSchema.JSON, jsonLines(false, false), add), "{}");
        UUID v4 = UUID.fromString(record.fieldText("v4").orElseThrow());
        UUID v7 = UUID.fromString(record.fieldText("v7").orElseThrow());
        assertThat(v4.version()).isEqualTo(4);
        assertThat(v7.version()).isEqualTo(7);
        assertThat(v7.variant()).isEqualTo(2);
        assertThat(v7.getMostSignificantBits() >>> 16).isEqualTo(Fixtures.FIXED_CLOCK.millis());
        assertThat(record.fieldText("v7").orElseThrow()).isLowerCase();
    }

    @Test
    void chrono_rfc3339_uses_the_fewest_of_0_3_6_9_fraction_digits() {
        assertThat(PayloadTransforms.chronoRfc3339(Instant.parse("2026-03-16T14:02:31Z")))
                .isEqualTo("2026-03-16T14:02:31+00:00");
        assertThat(PayloadTransforms.chronoRfc3339(Instant.parse("2026-03-16T14:02:31.000120Z")))
                .isEqualTo("2026-03-16T14:02:31.000120+00:00");
        assertThat(PayloadTransforms.chronoRfc3339(Instant.parse("2026-03-16T14:02:31.000000001Z")))
                .isEqualTo("2026-03-16T14:02:31.000000001+00:00");
    }

    @Test
    void delete_fields_removes_top_level_keys_only() throws BadRecordException {
        var delete = new TransformSettings.DeleteFields(List.of("a", "missing", "c.d"));
        assertThat(run("{\"a\":1,\"b\":2,\"c\":{\"d\":3}}", delete)).isEqualTo("{\"b\":2,\"c\":{\"d\":3}}");
    }

    @Test
    void update_fields_respects_each_condition() throws BadRecordException {
        var update = new TransformSettings.UpdateFields(List.of(
                new TransformSettings.UpdateField(fixed("status", "updated"), Condition.KEY_EXISTS),
                new TransformSettings.UpdateField(fixed("absent", "no"), Condition.KEY_EXISTS),
                new TransformSettings.UpdateField(fixed("status", "never"), Condition.KEY_NOT_EXISTS),
                new TransformSettings.UpdateField(fixed("created", "yes"), Condition.KEY_NOT_EXISTS),
                new TransformSettings.UpdateField(fixed("always", 1L), Condition.ALWAYS)));
        assertThat(run("{\"status\":\"pending\"}", update))
                .isEqualTo("{\"always\":1,\"created\":\"yes\",\"status\":\"updated\"}");
    }

    @Test
    void filter_fields_keeps_listed_keys_plus_matches_when_including() throws BadRecordException {
        var filter = new TransformSettings.FilterFields(List.of("id"),
                List.of(pattern(KeyMatch.STARTS_WITH, "meta_", null)), true);
        assertThat(run("{\"id\":1,\"name\":\"t\",\"meta_a\":2,\"meta_b\":null}", filter))
                .isEqualTo("{\"id\":1,\"meta_a\":2,\"meta_b\":null}");
    }

    @Test
    void filter_fields_drops_matches_when_excluding() throws BadRecordException {
        var filter = new TransformSettings.FilterFields(List.of(),
                List.of(pattern(KeyMatch.REGEX, "^tmp", ValueMatch.IS_NUMBER)), false);
        assertThat(run("{\"tmp1\":1,\"tmp2\":\"s\",\"x\":3}", filter)).isEqualTo("{\"tmp2\":\"s\",\"x\":3}");
    }

    @Test
    void filter_fields_value_patterns_follow_simd_json_semantics() throws BadRecordException {
        String doc = "{\"f\":2.5,\"i\":5,\"s\":\"hello\",\"n\":null,\"o\":{},\"a\":[],\"b\":false}";
        assertThat(run(doc, filter(ValueMatch.GREATER_THAN, 2L))).isEqualTo("{\"f\":2.5}"); // an integer never compares
        assertThat(run(doc, filter(ValueMatch.BETWEEN, 2.5, 3.0))).isEqualTo("{\"f\":2.5}");
        assertThat(run(doc, filter(ValueMatch.EQUALS, 5L))).isEqualTo("{\"i\":5}");
        assertThat(run(doc, filter(ValueMatch.EQUALS, 5.0))).isEqualTo("{}");
        assertThat(run(doc, filter(ValueMatch.CONTAINS, "ell"))).isEqualTo("{\"s\":\"hello\"}");
        assertThat(run(doc, filter(ValueMatch.REGEX, "^h.*o$"))).isEqualTo("{\"s\":\"hello\"}");
        assertThat(run(doc, filter(ValueMatch.IS_NULL))).isEqualTo("{\"n\":null}");
        assertThat(run(doc, filter(ValueMatch.IS_OBJECT))).isEqualTo("{\"o\":{}}");
        assertThat(run(doc, filter(ValueMatch.IS_ARRAY))).isEqualTo("{\"a\":[]}");
        assertThat(run(doc, filter(ValueMatch.IS_BOOLEAN))).isEqualTo("{\"b\":false}");
        assertThat(run(doc, filter(ValueMatch.IS_STRING))).isEqualTo("{\"s\":\"hello\"}");
        assertThat(run(doc, filter(ValueMatch.IS_NUMBER))).isEqualTo("{\"f\":2.5,\"i\":5}");
        assertThat(run(doc, filter(ValueMatch.IS_NOT_NULL)))
                .isEqualTo("{\"a\":[],\"b\":false,\"f\":2.5,\"i\":5,\"o\":{},\"s\":\"hello\"}");
    }

    private static TransformSettings filter(ValueMatch match, Object... operands) {
        return new TransformSettings.FilterFields(List.of(), List.of(pattern(null, null, match, operands)), true);
    }

    @Test
    void filter_fields_with_a_bad_regex_fails_at_build_time() {
        assertThatThrownBy(() -> codec(PayloadSchema.JSON, jsonLines(false, false), filter(ValueMatch.REGEX, "(")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unwrap_envelope_promotes_the_field_of_any_type_and_leaves_others_alone() throws BadRecordException {
        var unwrap = new TransformSettings.UnwrapEnvelope("data");
        assertThat(run("{\"table\":\"t\",\"data\":{\"id\":1}}", unwrap)).isEqualTo("{\"id\":1}");
        assertThat(run("{\"data\":\"just\"}", unwrap)).isEqualTo("\"just\"");
        assertThat(run("{\"other\":1}", unwrap)).isEqualTo("{\"other\":1}");
        assertThat(run("[1,2]", unwrap)).isEqualTo("[1,2]");
    }

    @Test
    void transforms_apply_in_file_order() throws BadRecordException {
        var unwrap = new TransformSettings.UnwrapEnvelope("data");
        var add = new TransformSettings.AddFields(List.of(fixed("added", 1L)));
        assertThat(run("{\"data\":{\"id\":1}}", unwrap, add)).isEqualTo("{\"added\":1,\"id\":1}");
        assertThat(run("{\"data\":{\"id\":1}}", add, unwrap)).isEqualTo("{\"id\":1}");
    }

    @Test
    void field_transforms_pass_non_object_payloads_unchanged() throws BadRecordException {
        var add = new TransformSettings.AddFields(List.of(fixed("added", 1L)));
        RecordCodec text = codec(PayloadSchema.TEXT, jsonLines(false, false), add);
        assertThat(payloadOf(text, record("{\"a\":1}"))).isEqualTo("\"{\\\"a\\\":1}\"");
        RecordCodec raw = codec(PayloadSchema.RAW, Fixtures.output(OutputFormat.RAW, Compression.NONE, false, false),
                add);
        assertThat(Fixtures.fileOf(raw, record("{\"a\":1}"))).isEqualTo("{\"a\":1}");
        assertThat(run("[{\"a\":1}]", add)).isEqualTo("[{\"a\":1}]");
    }

    @Test
    void a_static_value_is_not_shared_between_records() throws BadRecordException {
        var add = new TransformSettings.AddFields(List.of(fixed("env", Map.of("k", 1L))));
        var unwrap = new TransformSettings.UnwrapEnvelope("env");
        var addAgain = new TransformSettings.AddFields(List.of(fixed("extra", 2L)));
        RecordCodec codec = codec(PayloadSchema.JSON, jsonLines(false, false), add, unwrap, addAgain);
        assertThat(payloadOf(codec, record("{}"))).isEqualTo("{\"extra\":2,\"k\":1}");
        assertThat(payloadOf(codec, record("{}"))).isEqualTo("{\"extra\":2,\"k\":1}");
    }
}
