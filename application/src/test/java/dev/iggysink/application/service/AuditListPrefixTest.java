package dev.iggysink.application.service;

import dev.iggysink.application.fakes.InMemoryObjectStore;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AuditListPrefixTest {
    private static final Audit AUDIT = new Audit(new InMemoryObjectStore());

    @ParameterizedTest(name = "prefix \"{0}\", template {1} -> \"{2}\"")
    @CsvSource(delimiter = '|', emptyValue = "", textBlock = """
            # output prefix | template                           | listed under
            out             | {stream}/{topic}/{date}/{hour}     | out/app_logs/api_requests/
            ''              | {stream}/{topic}/{partition}       | app_logs/api_requests/
            out             | {stream}/x{field:user.id}/{topic}  | out/app_logs/
            out             | {date}/{stream}/{topic}            | out/
            a/b             | lake/{topic}                       | a/b/lake/
            """)
    void lists_under_the_templates_fixed_directories(String prefix, String template, String expected) {
        assertThat(AUDIT.listPrefix(prefix, template, "app logs", "api/requests")).isEqualTo(expected);
    }
}
