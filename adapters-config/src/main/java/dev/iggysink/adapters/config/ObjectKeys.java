package dev.iggysink.adapters.config;

import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.KeySanitizer;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.naming.PathTemplate;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Checks the object keys one sink will write, before anything runs: no two (stream, topic) pairs may share keys (the
 * second upload would overwrite the first, and both offsets would be committed), and no key may be longer than S3
 * allows even with the shortest values.
 *
 * <p>A key is {@code [prefix/]<rendered template>/<partition>-<first>-<last>.<ext>}. Only {@code {stream}} and
 * {@code {topic}} differ between pairs; time, {@code {field:...}} and {@code {partition}} are the same function of
 * the record for every pair. So rendering each pair's template at one fixed time, partition and field value and
 * comparing the keys finds every pair that sanitising or a template without {@code {stream}}/{@code {topic}} makes
 * collide. (Only a template that glues {@code {stream}} or {@code {topic}} directly to another variable could make
 * two pairs meet at some other time; that is not caught.)
 */
final class ObjectKeys {
    /** The shortest rendering: epoch 0 (a one-digit {timestamp}), partition 0, an empty field value. */
    private static final long SAMPLE_TIME = 0L;

    private ObjectKeys() {
    }

    static void check(Table plugin, List<StreamDto> streams, PluginConfigDto config) {
        String extension = config.outputFormat().extension() + config.compression().suffix();
        String prefix = config.prefix();
        int shortest = StoreRules.utf8Length(ObjectKey.of(prefix, "", 0, 0, 0, extension));
        if (shortest > StoreRules.MAX_KEY_BYTES) {
            plugin.error("prefix", "object keys would be at least " + shortest + " bytes long (S3 allows "
                    + StoreRules.MAX_KEY_BYTES + ")");
            return;
        }
        PathTemplate template = PathTemplate.parse(config.pathTemplate());
        Map<String, PartitionRef> byKey = new LinkedHashMap<>();
        boolean tooLong = false;
        boolean dlqTooLong = false;
        for (StreamDto stream : streams) {
            for (String topic : stream.topics()) {
                PartitionRef pair = new PartitionRef(stream.stream(), topic, 0);
                String key = ObjectKey.of(prefix, template.render(pair, SAMPLE_TIME, config.timezone(),
                        path -> Optional.of(""), config.missingFieldPlaceholder()), 0, 0, 0, extension);
                int bytes = StoreRules.utf8Length(key);
                if (!tooLong && bytes > StoreRules.MAX_KEY_BYTES) {
                    tooLong = true;
                    plugin.error("path_template", "object keys of " + describe(pair) + " would be at least " + bytes
                            + " bytes long (S3 allows " + StoreRules.MAX_KEY_BYTES + ")");
                }
                int dlqBytes = StoreRules.utf8Length(deadLetterKey(prefix, config.dlqPrefix(), pair));
                if (!dlqTooLong && dlqBytes > StoreRules.MAX_KEY_BYTES) {
                    dlqTooLong = true;
                    plugin.error("dlq_prefix", "dead-letter keys of " + describe(pair) + " would be at least "
                            + dlqBytes + " bytes long (S3 allows " + StoreRules.MAX_KEY_BYTES + ")");
                }
                PartitionRef first = byKey.putIfAbsent(key, pair);
                if (first != null && !first.equals(pair)) {
                    plugin.error("path_template", describe(first) + " and " + describe(pair)
                            + " would write the same object keys (" + why(config.pathTemplate(), first, pair) + ")");
                }
            }
        }
    }

    /** The shortest dead-letter key of a pair; its layout is the application's DeadLetters key. */
    private static String deadLetterKey(String prefix, String dlqPrefix, PartitionRef pair) {
        return (prefix.isEmpty() ? "" : prefix + "/") + dlqPrefix + "/" + KeySanitizer.sanitize(pair.stream()) + "/"
                + KeySanitizer.sanitize(pair.topic()) + "/00000-" + "0".repeat(20) + ".json";
    }

    private static String why(String template, PartitionRef a, PartitionRef b) {
        if (!a.stream().equals(b.stream()) && !template.contains("{stream}")) {
            return "the path template has no {stream}";
        }
        if (!a.topic().equals(b.topic()) && !template.contains("{topic}")) {
            return "the path template has no {topic}";
        }
        return "names are sanitised: every character other than ASCII letters, digits, '.', '_' and '-' becomes '_'";
    }

    private static String describe(PartitionRef pair) {
        return "stream " + StoreRules.quote(pair.stream()) + " topic " + StoreRules.quote(pair.topic());
    }
}
