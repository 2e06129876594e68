package dev.iggysink.bootstrap.admin;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.logging.Level;
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
 * The headless Chromium of the status page tests, and the waits they read the page with. Chromium and chromedriver
 * come from Debian's packages (scripts/ensure-chromium.sh installs them; CHROMIUM_BINARY and CHROMEDRIVER_BINARY
 * point elsewhere).
 */
final class HeadlessChromium {
    static final Duration WAIT = Duration.ofSeconds(30);

    private HeadlessChromium() {
    }

    /** A browser with its profile in {@code profile}, recording its console. */
    static WebDriver start(Path profile) {
        ChromeOptions options = new ChromeOptions();
        options.setBinary(binary("CHROMIUM_BINARY", "/usr/bin/chromium").toFile());
        // Headless as root in a container; and no background traffic: the machine may have no way out.
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

    private static Path binary(String variable, String fallback) {
        Path path = Path.of(Optional.ofNullable(System.getenv(variable)).filter(v -> !v.isBlank()).orElse(fallback));
        assertThat(path).as("%s (set %s, or run scripts/ensure-chromium.sh as root)", path, variable)
                .isExecutable();
        return path;
    }

    /**
     * The text of an element the page may be re-rendering right now (it redraws on every poll): read again when the
     * element found went stale before its text was read.
     */
    static String textOf(WebDriver browser, By by) {
        return new WebDriverWait(browser, WAIT).ignoring(StaleElementReferenceException.class)
                .until(d -> d.findElement(by).getText());
    }

    /** Waits until {@code condition} holds, failing with {@code what} after {@link #WAIT}. */
    static void until(WebDriver browser, String what, BooleanSupplier condition) {
        new WebDriverWait(browser, WAIT).withMessage(what).ignoring(StaleElementReferenceException.class)
                .until(d -> condition.getAsBoolean());
    }

    /** The console's entries of level SEVERE or above so far. */
    static List<LogEntry> consoleErrors(WebDriver browser) {
        return browser.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
    }
}
