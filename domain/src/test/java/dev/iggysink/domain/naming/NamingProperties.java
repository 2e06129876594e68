package dev.iggysink.domain.naming;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.message.PartitionRef;
import java.time.ZoneId;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.NotBlank;

class NamingProperties {
    private static final PathTemplate EVERYTHING = PathTemplate.parse(
            "{stream}/{topic}/{partition}/{date}/{hour}/{minute}/{year}/{month}/{day}/{timestamp}/{field:a.b}/{field:c}");

    @Property
    void every_rendered_segment_holds_only_allowed_characters(
            @ForAll @NotBlank String stream, @ForAll @NotBlank String topic,
            @ForAll @IntRange(min = 0, max = 100_000) int partition,
            @ForAll @LongRange(min = 0, max = 253_402_300_799_000_000L) long micros,
            @ForAll String fieldValue, @ForAll String missing) {
        PartitionRef ref = new PartitionRef(stream, topic, partition);
        FieldLookup fields = p -> p.equals("a.b") ? Optional.of(fieldValue) : Optional.empty();
        String rendered = EVERYTHING.render(ref, micros, ZoneId.of("Europe/Berlin"), fields, missing);
        String[] segments = rendered.split("/", -1);
        assertThat(segments).hasSize(12);
        for (String segment : segments) {
            assertThat(segment.codePoints().allMatch(KeySanitizer::isAllowed)).as(segment).isTrue();
        }
        assertThat(segments[0]).hasSize(stream.codePointCount(0, stream.length()));
    }

    @Property
    void parse_inverts_of(@ForAll @IntRange(min = 0, max = 99_999) int partition,
                          @ForAll @LongRange(min = 0) long first, @ForAll @LongRange(min = 0) long width,
                          @ForAll boolean withPrefix) {
        long last = first + Math.min(width, Long.MAX_VALUE - first);
        String key = ObjectKey.of(withPrefix ? "p/q" : "", "a/b", partition, first, last, "jsonl");
        assertThat(ObjectKey.parse(key)).contains(new KeyRange(partition, first, last));
        assertThat(key.substring(key.lastIndexOf('/') + 1)).hasSize(5 + 1 + 20 + 1 + 20 + ".jsonl".length());
    }
}
