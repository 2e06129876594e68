package dev.iggysink.domain.naming;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeySanitizerTest {

    @ParameterizedTest(name = "[{0}] -> [{1}]")
    @CsvSource(delimiter = '|', emptyValue = "", textBlock = """
            application_logs | application_logs
            a b/c            | a_b_c
            Api.Requests-v2  | Api.Requests-v2
            x:y*z?           | x_y_z_
            ''               | ''
            über             | _ber
            日志              | __
            😀x               | _x
            a\\b             | a_b
            """)
    void keeps_ascii_letters_digits_dot_underscore_dash(String in, String out) {
        assertThat(KeySanitizer.sanitize(in)).isEqualTo(out);
    }

    @org.junit.jupiter.api.Test
    void a_surrogate_pair_is_one_code_point_and_a_lone_surrogate_one_char() {
        assertThat(KeySanitizer.sanitize("a\uD83D\uDE00b")).isEqualTo("a_b");
        assertThat(KeySanitizer.sanitize("a\uD83Db")).isEqualTo("a_b");
        assertThat(KeySanitizer.sanitize("tab\there\nnl")).isEqualTo("tab_here_nl");
    }
}
