package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The command line itself: bad option values, no arguments, and the exit codes --help documents. */
class CommandLineTest {

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "0s   | '--status-interval': must be more than zero",
        "0    | '--status-interval': must be more than zero",
        "abc  | '--status-interval': 'abc' is not a duration",
        "-5s  | '--status-interval': '-5s' is not a duration",
        "10x  | '--status-interval': '10x' is not a duration"})
    void a_bad_status_interval_is_one_line_and_exit_2_before_the_config_is_read(String value, String expected) {
        // The config file does not exist: the option must be refused before anything looks at it.
        CliRun o = CliRun.execute("run", "--config", "does-not-exist.toml", "--status-interval", value);

        assertThat(o.code()).isEqualTo(2);
        assertThat(o.err().strip().lines()).as(o.err()).hasSize(1);
        assertThat(o.err()).contains(expected).doesNotContain("Exception").doesNotContain("does-not-exist");
    }

    @Test
    void durations_on_the_command_line_take_the_config_file_syntax() {
        DurationConverter c = new DurationConverter();

        assertThat(c.convert("1h")).isEqualTo(Duration.ofHours(1));
        assertThat(c.convert("1h 30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(c.convert("500ms")).isEqualTo(Duration.ofMillis(500));
        assertThat(c.convert("2days")).isEqualTo(Duration.ofDays(2));
    }

    @Test
    void an_unknown_option_is_one_line_and_exit_2() {
        CliRun o = CliRun.execute("run", "--config", "x.toml", "--no-such-option");

        assertThat(o.code()).isEqualTo(2);
        assertThat(o.err().strip().lines()).as(o.err()).hasSize(1);
        assertThat(o.err()).contains("--no-such-option");
    }

    @Test
    void no_arguments_prints_usage_and_exits_2() {
        CliRun o = CliRun.execute();

        assertThat(o.code()).isEqualTo(2);
        assertThat(o.err()).contains("Usage: iggy-s3-sink").contains("run").contains("audit");
    }

    @Test
    void run_help_lists_every_exit_code_and_fail_fast() {
        CliRun o = CliRun.execute("run", "--help");

        assertThat(o.code()).isZero();
        assertThat(o.out()).contains("--fail-fast").contains("Exit codes:");
        for (String code : new String[] {"0", "1", "2", "3"}) {
            assertThat(o.out()).containsPattern("(?m)^\\s+" + code + "\\s+\\S");
        }
        assertThat(o.out()).contains("admin port").contains("password").contains("stream");
    }

    @Test
    void audit_help_lists_every_exit_code() {
        CliRun o = CliRun.execute("audit", "--help");

        for (String code : new String[] {"0", "1", "2", "3"}) {
            assertThat(o.out()).containsPattern("(?m)^\\s+" + code + "\\s+\\S");
        }
    }
    @Test
    void redrive_help_lists_every_exit_code_and_the_filters() {
        CliRun o = CliRun.execute("redrive", "--help");

        assertThat(o.code()).isZero();
        for (String code : new String[] {"0", "1", "2", "3"}) {
            assertThat(o.out()).containsPattern("(?m)^\\s+" + code + "\\s+\\S");
        }
        assertThat(o.out()).contains("--dry-run", "--partition", "--offsets", "--error", "--stream", "--topic");
    }

    @Test
    void a_redrive_offset_range_that_is_not_one_is_one_line_naming_it_and_exit_2() {
        for (String bad : new String[] {"9-3", "x", "1-2-3", "-4"}) {
            CliRun o = CliRun.execute("redrive", "--config", "x.toml", "--offsets", bad);

            assertThat(o.code()).as(bad).isEqualTo(2);
            assertThat(o.err().strip().lines()).as(o.err()).hasSize(1);
            assertThat(o.err()).contains("--offsets '" + bad + "'");
        }
    }
}
