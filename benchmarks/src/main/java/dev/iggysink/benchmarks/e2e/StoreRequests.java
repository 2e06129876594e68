package dev.iggysink.benchmarks.e2e;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The S3 requests MinIO answered, per API, from its own counters (the bench's MinIO runs with
 * {@code MINIO_PROMETHEUS_AUTH_TYPE=public}): one small GET of {@code /minio/metrics/v3/api/requests}, a few ms, so
 * it can be read at the moments the bench times without loading the store. A reading is a pair of maps (all
 * answers, and the 4xx among them) by API name, e.g. {@code PutObject}; two readings give what happened between.
 */
record StoreRequests(Map<String, Long> total, Map<String, Long> refused) {
    static final Map<String, String> MINIO_ENV = Map.of("MINIO_PROMETHEUS_AUTH_TYPE", "public");
    private static final Pattern LINE = Pattern.compile(
            "^minio_api_requests_(total|4xx_errors_total)\\{([^}]*)}\\s+([0-9.eE+]+)\\s*$", Pattern.MULTILINE);
    private static final Pattern NAME = Pattern.compile("(?:^|,)name=\"([^\"]+)\"");
    private static final Pattern TYPE = Pattern.compile("(?:^|,)type=\"([^\"]+)\"");
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    /** The counters of the MinIO at {@code endpoint}, empty when it does not publish them (an external store). */
    static Optional<StoreRequests> read(URI endpoint) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(endpoint.resolve("/minio/metrics/v3/api/requests"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() != 200) return Optional.empty();
            StoreRequests parsed = parse(r.body());
            return parsed.total().isEmpty() ? Optional.empty() : Optional.of(parsed);
        } catch (java.io.IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    /** The S3 API counters of a Prometheus text page (other types, e.g. admin calls, are left out). */
    static StoreRequests parse(String prometheusText) {
        Map<String, Long> total = new TreeMap<>();
        Map<String, Long> refused = new TreeMap<>();
        Matcher m = LINE.matcher(prometheusText);
        while (m.find()) {
            String labels = m.group(2);
            Matcher name = NAME.matcher(labels);
            Matcher type = TYPE.matcher(labels);
            if (!name.find() || (type.find() && !type.group(1).equals("s3"))) continue;
            long value = (long) Double.parseDouble(m.group(3));
            (m.group(1).equals("total") ? total : refused).merge(name.group(1), value, Long::sum);
        }
        return new StoreRequests(total, refused);
    }

    /** What was answered after {@code earlier} up to this reading. */
    StoreRequests since(StoreRequests earlier) {
        return new StoreRequests(minus(total, earlier.total), minus(refused, earlier.refused));
    }

    long all() {
        return total.values().stream().mapToLong(Long::longValue).sum();
    }

    long of(String api) {
        return total.getOrDefault(api, 0L);
    }

    long refusedOf(String api) {
        return refused.getOrDefault(api, 0L);
    }

    /** E.g. {@code PutObject 1010, DeleteObject 504}: every API with a request, most first. */
    String breakdown() {
        StringBuilder sb = new StringBuilder();
        total.entrySet().stream().filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> sb.append(sb.isEmpty() ? "" : ", ").append(e.getKey()).append(' ').append(e.getValue()));
        return sb.isEmpty() ? "none" : sb.toString();
    }

    private static Map<String, Long> minus(Map<String, Long> later, Map<String, Long> earlier) {
        Map<String, Long> d = new TreeMap<>();
        later.forEach((k, v) -> {
            long diff = v - earlier.getOrDefault(k, 0L);
            if (diff != 0) d.put(k, diff);
        });
        return d;
    }
}
