package dev.iggysink.domain.naming;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.message.PartitionRef;
import java.time.ZoneId;
import java.util.Optional;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Which templates render one partition's folders in the order of its records' time (the self-audit lists less). */
class PathTemplateOrderTest {
    private static final PartitionRef PARTITION = new PartitionRef("s", "t", 7);

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', textBlock = """
            {stream}/{topic}/{date}/{hour}                   | true
            {stream}/{topic}                                 | true
            {stream}/{partition}/{date}                      | true
            year={year}/month={month}/day={day}/hour={hour}  | true
            {date}/{hour}/{minute}                           | true
            {year}/{month}                                   | true
            {hour}/{date}                                    | false
            {stream}/{hour}                                  | false
            {date}/{minute}                                  | false
            {year}/{day}                                     | false
            {date}/{date}                                    | false
            {timestamp}                                      | false
            {date}/{field:region}                            | false
            """)
    void keys_sort_by_time_only_with_padded_units_from_coarse_to_fine(String template, boolean sorts) {
        assertThat(PathTemplate.parse(template).keysSortByTime()).isEqualTo(sorts);
    }

    @ParameterizedTest
    @ValueSource(strings = {"{stream}/{topic}/{date}/{hour}", "year={year}/month={month}/day={day}/hour={hour}",
            "{partition}-{year}{month}"})
    void a_later_record_never_renders_a_folder_that_sorts_before_an_earlier_one(String template) {
        PathTemplate t = PathTemplate.parse(template);
        assertThat(t.keysSortByTime()).isTrue();
        SplittableRandom random = new SplittableRandom(template.hashCode());
        for (String zone : new String[] {"UTC", "Europe/Berlin", "America/New_York"}) {
            long micros = 1_600_000_000_000_000L;
            String before = t.render(PARTITION, micros, ZoneId.of(zone), p -> Optional.empty(), "x");
            for (int i = 0; i < 20_000; i++) {
                micros += random.nextLong(1, 4L * 3_600_000_000L); // up to four hours on
                String after = t.render(PARTITION, micros, ZoneId.of(zone), p -> Optional.empty(), "x");
                assertThat(after.compareTo(before)).as("%s then %s in %s", before, after, zone)
                        .isGreaterThanOrEqualTo(0);
                before = after;
            }
        }
    }
}
