package dev.iggysink.bootstrap.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.fakes.LinesCodec;
import dev.iggysink.application.fakes.ScriptedMessageSource;
import dev.iggysink.application.fakes.TestSettings;
import dev.iggysink.application.service.SinkService;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.application.settings.SinkSettings;
import dev.iggysink.application.status.PartitionStatus;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.InstantSource;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The status page in a real headless Chromium, in front of a real SinkService on the application's in-memory fakes:
 * it shows the live state, its buttons reach the sink (asking for the token first), and its console stays free of
 * errors ({@link HeadlessChromium}). Leaves a screenshot at target/status-page.png.
 */
class StatusPageIT {
    private static final Duration WAIT = HeadlessChromium.WAIT;
    private static final String TOKEN = "status-page-t0ken";
    private static final int RECORDS_PER_FILE = 50;

    private final InMemoryObjectStore store = new InMemoryObjectStore();
    private final ScriptedMessageSource source = new ScriptedMessageSource("logs", "api", 2);
    private final PrometheusMetrics metrics = new PrometheusMetrics();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private SinkService sink;
    private AdminHttpServer server;
    private WebDriver browser;
    private String base;

    @BeforeEach
    void setUp(@TempDir Path profile) throws IOException {
        SinkSettings settings = TestSettings.countRotation(TestSettings.stream("logs", "api"), RECORDS_PER_FILE);
        sink = new SinkService(settings, (s, t, g) -> source, s -> new LinesCodec(), store, InstantSource.system(),
                d -> Thread.sleep(Math.min(d.toMillis(), 20)), metrics.forSink("s3"));
        sink.start();
        server = AdminHttpServer.start(new AdminSettings(Optional.of("127.0.0.1:0"), Optional.of(Secret.of(TOKEN))),
                () -> List.of(new ManagedSink("s3", sink)), metrics);
        base = "http://127.0.0.1:" + server.address().orElseThrow().getPort();
        browser = HeadlessChromium.start(profile);
    }

    @AfterEach
    void tearDown() throws InterruptedException {
        if (browser != null) browser.quit();
        if (server != null) server.close();
        if (sink != null) sink.stop();
        metrics.close();
    }

    private PartitionStatus partition(int id) {
        return sink.status().partitions().stream().filter(p -> p.partition() == id).findFirst().orElseThrow();
    }

    private String textOf(By by) {
        return HeadlessChromium.textOf(browser, by);
    }

    private String cell(int partition, String column) {
        return textOf(By.cssSelector("tr[data-partition='" + partition + "'] td." + column));
    }

    private String cellText(int partition, String column) {
        List<WebElement> cells = browser.findElements(
                By.cssSelector("tr[data-partition='" + partition + "'] td." + column));
        return cells.isEmpty() ? "" : cells.get(0).getText();
    }

    private void until(String what, java.util.function.BooleanSupplier condition) {
        HeadlessChromium.until(browser, what, condition);
    }

    @Test
    void the_page_shows_the_live_sink_and_its_buttons_reach_it_after_asking_for_the_token() throws Exception {
        browser.get(base + "/?every_ms=300");
        until("the first /status rendered", () -> browser.findElement(By.id("health")).getText().equals("OK"));

        // Traffic over a few polls, so the charts have something to draw: 120 records per partition, sealed at 50
        // and 100 by the count rule, leaving 20 open in each.
        for (int round = 0; round < 8; round++) {
            int from = round * 15;
            source.append(0, 15, i -> "{\"p\":0,\"i\":" + (from + i) + "}");
            source.append(1, 15, i -> "{\"p\":1,\"i\":" + (from + i) + "}");
            Thread.sleep(300);
        }
        await().atMost(WAIT).until(() -> partition(0).committed() == 99 && partition(1).committed() == 99
                && partition(0).position() == 120 && partition(1).position() == 120);
        assertThat(store.objects()).hasSize(4);

        until("partition 0 shows committed 99", () -> cellText(0, "committed").equals("99"));
        assertThat(cell(0, "position")).isEqualTo("120");
        assertThat(cell(0, "owned")).isEqualTo("yes");
        assertThat(cell(0, "buffered")).startsWith("20 rec");
        assertThat(cell(0, "last-upload")).contains("00000000000000000099");
        assertThat(textOf(By.id("health-text"))).startsWith("Healthy");
        assertThat(textOf(By.cssSelector("#rotations tr[data-reason='count']")))
                .contains("count").contains("4");
        assertThat(browser.findElements(By.cssSelector("#records-chart polyline"))).hasSize(1);

        // Flush: the token is set and the page does not know it yet, so it asks instead of sending.
        browser.findElement(By.id("flush")).click();
        WebElement tokenInput = new WebDriverWait(browser, WAIT)
                .until(ExpectedConditions.visibilityOfElementLocated(By.id("token")));
        assertThat(textOf(By.id("control-result"))).contains("needs the admin token");
        HttpResponse<String> withoutToken = http.send(HttpRequest.newBuilder(URI.create(base + "/flush"))
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(withoutToken.statusCode()).as("a flush without the token is refused").isEqualTo(401);
        assertThat(store.objects()).as("nothing sealed without the token").hasSize(4);
        assertThat(partition(0).committed()).isEqualTo(99);

        tokenInput.sendKeys(TOKEN);
        browser.findElement(By.id("token-send")).click();
        await().atMost(WAIT).until(() -> store.objects().size() == 6);
        await().atMost(WAIT).until(() -> source.stored(0).orElse(-1) == 119 && source.stored(1).orElse(-1) == 119);
        until("partition 0 shows committed 119", () -> cellText(0, "committed").equals("119"));
        assertThat(textOf(By.id("control-result"))).contains("flush sent to sink(s) s3");
        assertThat(browser.findElement(By.id("token")).isDisplayed()).as("the token form closed").isFalse();
        until("the flush rotations shown", () -> browser.findElements(
                By.cssSelector("#rotations tr[data-reason='flush']")).size() == 1);

        // The token is remembered for the next press.
        browser.findElement(By.id("pause")).click();
        await().atMost(WAIT).until(() -> sink.status().totals().paused());
        until("the page shows paused", () -> browser.findElement(By.id("paused")).getText().equals("paused"));
        until("the badge says paused", () -> browser.findElement(By.id("health")).getText().equals("PAUSED"));
        assertThat(textOf(By.id("health-text"))).startsWith("Paused").doesNotContain("every sink is consuming");
        assertThat(textOf(By.id("reasons"))).contains("paused since").contains("POST /pause from 127.0.0.1");
        browser.findElement(By.id("resume")).click();
        await().atMost(WAIT).until(() -> !sink.status().totals().paused());
        until("the page shows running", () -> browser.findElement(By.id("paused")).getText().isEmpty());
        until("the badge says ok again", () -> browser.findElement(By.id("health")).getText().equals("OK"));
        assertThat(textOf(By.id("totals"))).contains("oldest not yet durable");

        byte[] png = ((ChromeDriver) browser).getScreenshotAs(OutputType.BYTES);
        Path shot = Path.of("target", "status-page.png");
        Files.createDirectories(shot.getParent());
        Files.write(shot, png);
        assertThat(png.length).isGreaterThan(1000);

        assertThat(HeadlessChromium.consoleErrors(browser)).as("errors in the browser console").isEmpty();
    }

    @Test
    void a_failing_sink_shows_failed_with_its_reason() throws Exception {
        store.down(InMemoryObjectStore.forbidden());
        source.append(0, RECORDS_PER_FILE, i -> "{\"i\":" + i + "}");
        browser.get(base + "/?every_ms=300");
        until("the page shows failed", () -> browser.findElement(By.id("health")).getText().equals("FAILED"));
        assertThat(textOf(By.id("reasons"))).isNotBlank();
        assertThat(textOf(By.id("health-text"))).startsWith("Failed");
        assertThat(HeadlessChromium.consoleErrors(browser)).as("errors in the browser console").isEmpty();
    }
}
