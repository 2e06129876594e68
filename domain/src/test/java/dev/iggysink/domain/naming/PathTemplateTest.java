package dev.iggysink.domain.naming;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.message.PartitionRef;
import java.time.Instant;
import java.time.ZoneId;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathTemplateTest {
    private static final PartitionRef PARTITION = new PartitionRef("app logs", "api/requests", 12);
    private static final Map<String, String> FIELDS = Map.of("user.id", "u/42", "region", "eu-west-1");
    private static final FieldLookup LOOKUP = p -> Optional.ofNullable(FIELDS.get(p));

    @ParameterizedTest(name = "{0} @ {1} {2} -> {3}")
    @CsvSource(delimiter = '|', textBlock = """
            # template                                   | first record time           | zone          | rendered
            {stream}/{topic}/{date}/{hour}               | 2026-03-16T14:27:31.5Z      | UTC           | app_logs/api_requests/2026-03-16/14
            {stream}/{partition}/{minute}                | 2026-03-16T14:07:00Z        | UTC           | app_logs/12/07
            year={year}/month={month}/day={day}/hour={hour} | 2026-01-02T03:04:05Z     | UTC           | year=2026/month=01/day=02/hour=03
            {date}/{hour}                                | 2026-03-16T23:30:00Z        | Europe/Berlin | 2026-03-17/00
            {date}/{hour}                                | 2026-03-16T02:30:00Z        | America/New_York | 2026-03-15/22
            {timestamp}                                  | 2026-03-16T14:27:31.123456Z | UTC           | 1773671251123
            {timestamp}                                  | 1970-01-01T00:00:00.000999Z | UTC           | 0
            {field:user.id}/{field:region}/{field:nope}  | 2026-03-16T14:00:00Z        | UTC           | u_42/eu-west-1/__missing
            {unknown}/{stream}/{field:}/{                | 2026-03-16T14:00:00Z        | UTC           | {unknown}/app_logs/{field:}/{
            {{topic}}x                                   | 2026-03-16T14:00:00Z        | UTC           | {api_requests}x
            plain/path                                   | 2026-03-16T14:00:00Z        | UTC           | plain/path
            """)
    void renders_every_variable(String template, Instant time, ZoneId zone, String expected) {
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, time);
        assertThat(PathTemplate.parse(template).render(PARTITION, micros, zone, LOOKUP, "??missing"))
                .isEqualTo(expected);
    }

    @ParameterizedTest(name = "{0}: fields={1} time={2}")
    @CsvSource(delimiter = '|', textBlock = """
            {stream}/{topic}          | false | false
            {stream}/{date}           | false | true
            {timestamp}               | false | true
            {field:a}/{minute}        | true  | true
            {field:}/{hours}          | false | false
            """)
    void tells_what_it_reads(String template, boolean fields, boolean time) {
        PathTemplate parsed = PathTemplate.parse(template);
        assertThat(parsed.usesFields()).isEqualTo(fields);
        assertThat(parsed.usesTime()).isEqualTo(time);
        assertThat(parsed.template()).isEqualTo(template);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            {stream}/{foo}/{date}       | unknown variable {foo}
            {stream/{topic}             | {stream is not closed (character 1)
            {topic}/{stream             | {stream is not closed (character 9)
            {                           | { is not closed (character 1)
            {stream}/{field:}           | {field:} names no field (e.g. {field:user.id})
            {stream}}/x                 | } at character 9 closes no variable
            {{topic}                    | { is not closed (character 1)
            """)
    void a_template_with_anything_but_variables_in_braces_has_a_problem(String template, String problem) {
        assertThat(PathTemplate.problem(template)).contains(problem + " (variables: {stream}, {topic}, {partition}, "
                + "{date}, {hour}, {minute}, {year}, {month}, {day}, {timestamp}, {field:dotted.path})");
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', textBlock = """
            {stream}/{topic}/{date}/{hour}
            {topic}/year={year}/month={month}/day={day}/hour={hour}/minute={minute}
            {field:user.id}/{partition}/{timestamp}
            plain/path
            """)
    void a_template_of_known_variables_has_no_problem(String template) {
        assertThat(PathTemplate.problem(template)).isEmpty();
    }

    @Test
    void equal_templates_are_equal() {
        assertThat(PathTemplate.parse("{stream}")).isEqualTo(PathTemplate.parse("{stream}"))
                .isNotEqualTo(PathTemplate.parse("{topic}"));
    }
}
