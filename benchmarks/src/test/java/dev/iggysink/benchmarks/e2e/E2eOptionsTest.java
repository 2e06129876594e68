package dev.iggysink.benchmarks.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class E2eOptionsTest {
    @Test
    void defaults_are_a_million_1KiB_messages_on_8_partitions_in_8MiB_files() {
        E2eOptions o = E2eOptions.parse(new String[0]);
        assertThat(o.messages).isEqualTo(1_000_000);
        assertThat(o.size).isEqualTo(1024);
        assertThat(o.partitions).isEqualTo(8);
        assertThat(o.rotationKind + ":" + o.rotationValue).isEqualTo("size:8MiB");
        assertThat(o.name).isEqualTo("json_lines-1KiB-size_8MiB-p8");
    }

    @Test
    void smoke_shrinks_the_run_but_explicit_flags_win() {
        E2eOptions o = E2eOptions.parse(new String[] {"--smoke", "--partitions", "2"});
        assertThat(o.messages).isEqualTo(20_000);
        assertThat(o.partitions).isEqualTo(2);
        assertThat(o.rotationKind).isEqualTo("messages");
    }

    @Test
    void claims_off_gives_the_sink_the_property_that_makes_its_store_ignore_conditional_writes() {
        E2eOptions on = E2eOptions.parse(new String[] {"--sink-java-opts", "-Xmx256m"});
        E2eOptions off = E2eOptions.parse(new String[] {"--sink-java-opts", "-Xmx256m", "--claims", "off"});
        assertThat(on.sinkJavaOptsWithSwitches()).contains("-Xmx256m")
                .noneMatch(opt -> opt.contains("ignoreConditionalWrites"));
        assertThat(off.sinkJavaOptsWithSwitches())
                .contains("-Xmx256m", "-Diggysink.bench.ignoreConditionalWrites=true");
        assertThatThrownBy(() -> E2eOptions.parse(new String[] {"--claims", "maybe"}))
                .hasMessageContaining("--claims is on or off");
    }

    @Test
    void sink_java_picks_the_java_command_of_the_sink_child() {
        E2eOptions o = E2eOptions.parse(new String[] {"--sink-java", "/opt/jdk-25/bin/java"});
        assertThat(o.sinkJava).isEqualTo("/opt/jdk-25/bin/java");
    }

    @Test
    void sizes_and_counts_accept_binary_units_and_separators() {
        assertThat(Sizes.parse("64KiB")).isEqualTo(65_536);
        assertThat(Sizes.parse("8MiB")).isEqualTo(8L << 20);
        assertThat(Sizes.parse("1_000_000")).isEqualTo(1_000_000);
        assertThat(Sizes.parse("100")).isEqualTo(100);
        assertThat(Sizes.parse("8 mib")).as("the config's spelling").isEqualTo(8L << 20);
        assertThat(Sizes.parse("10MB")).as("decimal units, as in the config").isEqualTo(10_000_000);
        assertThat(Sizes.parse("1M")).as("a count").isEqualTo(1_000_000);
        assertThat(Sizes.human(65_536)).isEqualTo("64KiB");
        assertThatThrownBy(() -> Sizes.parse("8XB")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void a_bad_rotation_or_an_unknown_flag_is_refused() {
        assertThatThrownBy(() -> E2eOptions.parse(new String[] {"--rotation", "hourly"}))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> E2eOptions.parse(new String[] {"--bogus"}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void latency_mode_trickles_rate_times_seconds_with_a_one_second_schedule() {
        E2eOptions o = E2eOptions.parse(new String[] {"--latency", "--trickle-rate", "10", "--trickle-seconds", "3"});
        assertThat(o.messages).isEqualTo(30);
        assertThat(o.rotateSchedule).isEqualTo("1s");
        assertThat(o.partitions).isEqualTo(2);
        assertThat(o.name).startsWith("latency-");
        assertThatThrownBy(() -> E2eOptions.parse(new String[] {"--latency", "--trickle-rate", "0"}))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void results_lines_read_back_as_fields() {
        var row = ResultsTable.parse("{\"name\":\"scale-p8\",\"at\":\"2026-01-01T00:00:00Z\",\"records_per_s\":51234.5,"
                + "\"sigterm_needed\":true,\"run_dir\":\"a\\\\b \\\"c\\\"\"}");
        assertThat(row).containsEntry("name", "scale-p8").containsEntry("records_per_s", "51234.5")
                .containsEntry("sigterm_needed", "true").containsEntry("run_dir", "a\\b \"c\"");
    }
}
