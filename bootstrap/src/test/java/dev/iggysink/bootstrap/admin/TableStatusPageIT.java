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
import java.util.logging.Level;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The status page of a table sink in headless Chromium (as {@link StatusPageIT}): its partitions, its commit totals
 * and each (partition, table) lane, and a halted lane. The sink is a {@link TableConsumer} on fakes, stepped by the
 * test.
 */
class TableStatusPageIT {
    private static final Duration WAIT = Duration.ofSeconds(30);
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
        browser = chromium(profile);
    }

    private static Path binary(String variable, String fallback) {
        Path path = Path.of(Optional.ofNullable(System.getenv(variable)).filter(v -> !v.isBlank()).orElse(fallback));
        assertThat(path).as("%s (set %s, or run scripts/ensure-chromium.sh as root)", path, variable)
                .isExecutable();
        return path;
    }

    private static WebDriver chromium(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(binary("CHROMIUM_BINARY", "/usr/bin/chromium").toFile());
        options.addArguments("--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                "--disable-sync", "--disable-extensions", "--window-size=1360,1000",
                "--user-data-dir=" + profile.toAbsolutePath());
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability(ChromeOptions.LOGGING_PREFS, logs);
        ChromeDriverService service = new ChromeDriverService.Builder()
                .usingDriverExecutable(binary("CHROMEDRIVER_BINARY", "/usr/bin/chromedriver").toFile())
                .usingAnyFreePort()
                .build();
        return new ChromeDriver(service, options);
    }

    @AfterEach
    void tearDown() {
        if (browser != null) browser.quit();
        if (server != null) server.close();
        metrics.close();
    }

    private String textOf(String css) {
        return new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(By.cssSelector(css)).getText());
    }

    private void until(String what, java.util.function.BooleanSupplier condition) {
        new WebDriverWait(browser, WAIT).withMessage(what).ignoring(StaleElementReferenceException.class)
                .until(d -> condition.getAsBoolean());
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
        List<LogEntry> severe = browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
        assertThat(severe).as("errors in the browser console").isEmpty();
    }
}
