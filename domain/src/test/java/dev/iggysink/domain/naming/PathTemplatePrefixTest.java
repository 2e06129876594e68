package dev.iggysink.domain.naming;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.message.PartitionRef;
import java.time.ZoneId;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathTemplatePrefixTest {

    @ParameterizedTest(name = "{0} -> \"{1}\"")
    @CsvSource(delimiter = '|', emptyValue = "", textBlock = """
            # template                                   | fixed prefix for stream "app logs", topic "api/requests"
            {stream}/{topic}/{date}/{hour}               | app_logs/api_requests/
            {stream}/{topic}/{partition}                 | app_logs/api_requests/
            lake/{topic}-{stream}/x{field:user.id}/y     | lake/api_requests-app_logs/x
            {date}/{stream}                              | ''
            year={year}/{stream}                         | year=
            plain/path                                   | plain/path
            {unknown}/{stream}/{date}                    | {unknown}/app_logs/
            {{topic}}x/{timestamp}                       | {api_requests}x/
            """)
    void is_the_rendered_text_before_the_first_variable_that_is_not_the_stream_or_topic(String template,
                                                                                         String expected) {
        assertThat(PathTemplate.parse(template).fixedPrefix("app logs", "api/requests")).isEqualTo(expected);
    }

    @Test
    void every_rendered_key_starts_with_it() {
        long seed = new Random().nextLong();
        Random random = new Random(seed);
        String[] templates = {"{stream}/{topic}/{date}/{hour}", "a/{topic}/{field:k}/{partition}", "{timestamp}",
                "p={partition}/{stream}", "{stream}{minute}{topic}", "x/{{stream}}/{month}"};
        for (int i = 0; i < 500; i++) {
            String template = templates[random.nextInt(templates.length)];
            PartitionRef partition = new PartitionRef("s" + random.nextInt(3) + " é/", "t/" + random.nextInt(3),
                    random.nextInt(1000));
            long micros = random.nextLong() % 4_000_000_000_000_000L;
            String value = "v/" + random.nextInt(100);
            String key = PathTemplate.parse(template).render(partition, micros, ZoneId.of("UTC"),
                    p -> random.nextBoolean() ? Optional.of(value) : Optional.empty(), "missing");
            assertThat(key)
                    .as("seed %d, template %s, %s", seed, template, partition)
                    .startsWith(PathTemplate.parse(template).fixedPrefix(partition.stream(), partition.topic()));
        }
    }
}
