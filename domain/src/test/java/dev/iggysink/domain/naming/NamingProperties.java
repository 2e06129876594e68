package dev.iggysink.domain.naming;

import static dev.iggysink.domain.Seeded.intBetween;
import static dev.iggysink.domain.Seeded.longBetween;
import static dev.iggysink.domain.Seeded.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.Seeded;
import dev.iggysink.domain.message.PartitionRef;
import java.time.ZoneId;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class NamingProperties {
    private static final PathTemplate EVERYTHING = PathTemplate.parse(
            "{stream}/{topic}/{partition}/{date}/{hour}/{minute}/{year}/{month}/{day}/{timestamp}/{field:a.b}/{field:c}");

    @Test
    void every_rendered_segment_holds_only_allowed_characters() {
        Seeded.check(1000, r -> {
            String stream = notBlank(r);
            String topic = notBlank(r);
            int partition = intBetween(r, 0, 100_000);
            long micros = longBetween(r, 0, 253_402_300_799_000_000L);
            String fieldValue = text(r, 30);
            String missing = text(r, 10);
            PartitionRef ref = new PartitionRef(stream, topic, partition);
            FieldLookup fields = p -> p.equals("a.b") ? Optional.of(fieldValue) : Optional.empty();
            String rendered = EVERYTHING.render(ref, micros, ZoneId.of("Europe/Berlin"), fields, missing);
            String[] segments = rendered.split("/", -1);
            assertThat(segments).as(rendered).hasSize(12);
            for (String segment : segments) {
                assertThat(segment.codePoints().allMatch(KeySanitizer::isAllowed)).as(segment).isTrue();
            }
            assertThat(segments[0]).hasSize(stream.codePointCount(0, stream.length()));
        });
    }

    @Test
    void parse_inverts_of() {
        Seeded.check(1000, r -> {
            int partition = intBetween(r, 0, 99_999);
            long first = longBetween(r, 0, Long.MAX_VALUE);
            long width = longBetween(r, 0, Long.MAX_VALUE);
            boolean withPrefix = r.nextBoolean();
            long last = first + Math.min(width, Long.MAX_VALUE - first);
            String key = ObjectKey.of(withPrefix ? "p/q" : "", "a/b", partition, first, last, "jsonl");
            assertThat(ObjectKey.parse(key)).as(key).contains(new KeyRange(partition, first, last));
            assertThat(key.substring(key.lastIndexOf('/') + 1)).hasSize(5 + 1 + 20 + 1 + 20 + ".jsonl".length());
        });
    }

    private static String notBlank(Random r) {
        String s;
        do {
            s = text(r, 16);
        } while (s.isBlank());
        return s;
    }
}
