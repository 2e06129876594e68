package dev.iggysink.bootstrap.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.fakes.InMemoryTables;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ManualClock;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.settings.ErrorTolerance;
import dev.iggysink.application.table.TableConsumer;
import dev.iggysink.application.table.TableRouting;
import dev.iggysink.application.table.TableSettings;
import dev.iggysink.application.table.TableSinkControl;
import dev.iggysink.application.table.TableTally;
import dev.iggysink.domain.rotation.RotationPolicy;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.WebDriver;

/**
 * The status page of a table sink in headless Chromium (as {@link StatusPageIT}): its partitions, its commit totals
 * and each (partition, table) lane, and a halted lane. The sink is a {@link TableConsumer} on fakes, stepped by the
 * test.
 */
class TableStatusPageIT {
    private static final String T = "lake.events";
    private static final Duration INTERVAL = Duration.ofSeconds(10);

    private final ManualClock clock = new ManualClock(Instant.now());
    private final ScriptedMessageSource topic = new ScriptedMessageSource("app", "events", 2);
    private final InMemoryTables tables = new InMemoryTables();
    private final PrometheusMetrics metrics = new PrometheusMetrics();
    private final TableTally tally = new TableTally(metrics.forTables("lake")::commitTook);
    private final TableSinkControl control = new TableSinkControl(tally, clock, 1 << 20, Duration.ofMillis(5),
            () -> { });
    private TableConsumer consumer;
    private AdminHttpServer server;
    private WebDriver browser;
    private String base;

    @BeforeEach
    void setUp(@TempDir Path profile) throws IOException {
        TableSettings settings = new TableSettings(TableRouting.fixed(T), RotationPolicy.byCount(3), INTERVAL, 100,
                100, ErrorTolerance.NONE);
        consumer = new TableConsumer(topic, new LinesCodec(), tables, settings, clock,
                control.counting(metrics.forSink("lake")), tally);
        control.register("app/events", consumer);
        server = AdminHttpServer.start(new AdminSettings(Optional.of("127.0.0.1:0"), Optional.empty()),
                () -> List.of(new ManagedSink("lake", control)), metrics);
        base = "http://127.0.0.1:" + server.address().orElseThrow().getPort();
        browser = HeadlessChromium.start(profile);
    }

    @AfterEach
    void tearDown() {
        if (browser != null) browser.quit();
        if (server != null) server.close();
        metrics.close();
    }

    private String textOf(String css) {
        return HeadlessChromium.textOf(browser, By.cssSelector(css));
    }

    private void until(String what, java.util.function.BooleanSupplier condition) {
        HeadlessChromium.until(browser, what, condition);
    }

    private String lane(int partition, String column) {
        return textOf("tr[data-table='" + T + "'][data-lane='" + partition + "'] td." + column);
    }

    @Test
    void the_page_shows_the_table_commits_each_lane_and_a_halted_one() throws Exception {
        topic.append(0, 7, i -> "n=" + i);
        consumer.step();
        clock.advance(INTERVAL);
        consumer.step();
        browser.get(base + "/?every_ms=300");

        until("lane 0 shows offset 6 in the table", () -> lane(0, "in-table").equals("6"));
        assertThat(lane(0, "read")).isEqualTo("6");
        assertThat(lane(0, "group")).isEqualTo("6");
        assertThat(textOf("tr[data-partition='0'] td.committed")).isEqualTo("6");
        String totals = textOf("[data-table-totals]");
        assertThat(totals).contains("table commits\n1").contains("rows committed\n7").contains("bad records\n0");
        assertThat(textOf("#health")).isEqualTo("OK");

        topic.append(1, List.of("n=0", "NOFIT n=x"));
        consumer.step();
        until("the page shows failed", () -> textOf("#health").equals("FAILED"));
        assertThat(lane(1, "err")).contains("bad record at offset 1");
        assertThat(textOf("#reasons")).contains("app/events/1 halted");
        assertThat(textOf("[data-table-totals]")).contains("bad records\n1");
        assertThat(HeadlessChromium.consoleErrors(browser)).as("errors in the browser console").isEmpty();
    }
}
