package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The fat jar's {@code run} as an operator sees it: JSON log lines with {@code --log-format json}, the admin
 * endpoints on the configured address, and not one secret anywhere in the whole output.
 */
class RunLogsIT extends E2eTest {
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    @Test
    @Timeout(300)
    void a_json_run_logs_one_json_object_per_line_serves_admin_and_never_prints_a_secret() throws Exception {
        fx.topic("events", 1);
        Path config = fx.config(List.of("events"), "json", """
                file_rotation = "messages"
                max_messages_per_file = 1000
                """);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        String token = "tok-" + UUID.randomUUID();
        String toml = Files.readString(config, StandardCharsets.UTF_8);
        assertThat(toml).contains("address = \"off\"");
        Files.writeString(config, toml.replace("address = \"off\"",
                "address = \"127.0.0.1:" + port + "\"\ntoken = \"" + token + "\""), StandardCharsets.UTF_8);
        String base = "http://127.0.0.1:" + port;

        List<String> cmd = new ArrayList<>(List.of(SinkProcess.javaBinary(), "-Xmx512m", "-jar",
                SinkProcess.jar().toString(), "run", "--config", config.toString(), "--status-interval", "1s",
                "--log-format", "json"));
        try (SinkProcess sink = SinkProcess.start(cmd, fx.log("json"), Map.of())) {
            await().atMost(Duration.ofSeconds(60)).until(() -> sink.logText().contains("consuming "));
            fx.producer.sendJson(fx.stream, "events", 0, 30, i -> "{\"i\":" + i + "}");
            await().atMost(Duration.ofSeconds(30)).until(() -> consumed(base) == 30);
            assertThat(get(base + "/health").statusCode()).isEqualTo(200);

            // 30 of 1000 records: nothing is durable until the flush.
            assertThat(post(base + "/flush", "Bearer wrong").statusCode()).isEqualTo(401);
            assertThat(fx.objects()).isEmpty();
            assertThat(post(base + "/flush", "Bearer " + token).statusCode()).isEqualTo(202);
            await().atMost(Duration.ofSeconds(30)).until(() -> fx.objects().size() == 1);
            // The run can be over in less than one status interval: wait for the first status line.
            await().atMost(Duration.ofSeconds(30)).until(() -> sink.logText().contains("status: "));

            sink.terminate();
            assertThat(sink.waitFor(Duration.ofSeconds(60))).as(sink.logText()).isZero();

            String log = sink.logText();
            List<JsonNode> events = new ArrayList<>();
            for (String line : log.split("\n")) {
                if (line.isBlank()) continue;
                events.add(JSON.readTree(line));
            }
            List<String> messages = events.stream().map(e -> e.get("formattedMessage").asString()).toList();
            // The configuration dump is where a secret would most likely leak: it is there, redacted.
            assertThat(messages).anyMatch(m -> m.startsWith("effective configuration of sink s3:")
                    && m.contains("secret_access_key=****"));
            // One event, and one line in a text log too (issue 35 item 7): every section, no line break.
            assertThat(messages).filteredOn(m -> m.startsWith("effective configuration")).singleElement()
                    .satisfies(m -> assertThat(m).doesNotContain("\n").contains("iggy: address=")
                            .contains("storage: bucket=").contains("retry: max_attempts=").contains("transforms: "));
            assertThat(messages).anyMatch(m -> m.startsWith("admin server on http://127.0.0.1:" + port));
            assertThat(messages).anyMatch(m -> m.startsWith("admin: flush requested"));
            assertThat(messages).anyMatch(m -> m.startsWith("status: "));
            assertThat(events).allMatch(e -> e.has("level") && e.has("loggerName") && e.has("timestamp"));

            assertThat(log).as("the store's secret key").doesNotContain(fx.minio.secretKey());
            assertThat(log).as("the admin token").doesNotContain(token);
        }
    }

    private long consumed(String base) throws Exception {
        return JSON.readTree(get(base + "/status").body()).get("totals").get("records_consumed").asLong();
    }

    private HttpResponse<String> get(String url) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(), HttpResponse.BodyHandlers.ofString());
    }

    private HttpResponse<String> post(String url, String authorization) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create(url)).header("Authorization", authorization)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }
}
