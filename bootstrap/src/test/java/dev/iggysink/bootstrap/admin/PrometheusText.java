package dev.iggysink.bootstrap.admin;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text format (0.0.4) for tests: every line must be a comment, blank, or a
 * well-formed sample, or parsing fails. Enough to check what a scraper would see.
 */
public final class PrometheusText {
    private static final Pattern SAMPLE = Pattern.compile(
            "^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+-?\\d+)?$");
    private static final Pattern LABEL = Pattern.compile("\\s*([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"\\s*(,|$)");
    private static final Pattern TYPE = Pattern.compile("^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (counter|gauge|histogram|summary|untyped)$");

    /** One sample line. */
    public record Sample(String name, Map<String, String> labels, double value) {
    }

    private final List<Sample> samples;
    private final Map<String, String> types;

    private PrometheusText(List<Sample> samples, Map<String, String> types) {
        this.samples = samples;
        this.types = types;
    }

    public static PrometheusText parse(String text) {
        List<Sample> samples = new ArrayList<>();
        Map<String, String> types = new LinkedHashMap<>();
        int n = 0;
        for (String line : text.split("\n", -1)) {
            n++;
            if (line.isBlank() || line.startsWith("# HELP ")) continue;
            if (line.startsWith("#")) {
                Matcher t = TYPE.matcher(line);
                if (!t.matches()) throw new IllegalArgumentException("line " + n + ": bad comment: " + line);
                types.put(t.group(1), t.group(2));
                continue;
            }
            Matcher m = SAMPLE.matcher(line);
            if (!m.matches()) throw new IllegalArgumentException("line " + n + ": not a sample: " + line);
            Map<String, String> labels = new LinkedHashMap<>();
            if (m.group(2) != null && !m.group(2).isEmpty()) {
                Matcher l = LABEL.matcher(m.group(2));
                int at = 0;
                while (at < m.group(2).length()) {
                    if (!l.find(at) || l.start() != at) {
                        throw new IllegalArgumentException("line " + n + ": bad labels: " + line);
                    }
                    labels.put(l.group(1), l.group(2));
                    at = l.end();
                }
            }
            samples.add(new Sample(m.group(1), labels, Double.parseDouble(m.group(3)
                    .replace("+Inf", "Infinity").replace("-Inf", "-Infinity"))));
        }
        return new PrometheusText(samples, types);
    }

    /** Samples of that name whose labels include all of {@code labels}. */
    public List<Sample> samples(String name, Map<String, String> labels) {
        return samples.stream().filter(s -> s.name().equals(name))
                .filter(s -> s.labels().entrySet().containsAll(labels.entrySet())).toList();
    }

    /** The sum over matching samples; fails when none match, so a renamed metric cannot pass as zero. */
    public double sum(String name, Map<String, String> labels) {
        List<Sample> found = samples(name, labels);
        if (found.isEmpty()) throw new AssertionError("no sample " + name + labels);
        return found.stream().mapToDouble(Sample::value).sum();
    }

    public String type(String name) {
        return types.get(name);
    }

    public boolean has(String name) {
        return samples.stream().anyMatch(s -> s.name().equals(name));
    }
}
