package dev.iggysink.adapters.config;

import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.KeyRules;
import dev.iggysink.domain.naming.KeySanitizer;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.naming.PathTemplate;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Checks the object keys one sink will write, before anything runs: no two (stream, topic) pairs may share keys (the
 * second upload would overwrite the first, and both offsets would be committed; the rule is the core's,
 * {@link KeyRules#collisions}, which refuses such settings too), and no key may be longer than S3 allows even with the
 * shortest values.
 *
 * <p>A key is {@code [prefix/]<rendered template>/<partition>-<first>-<last>.<ext>}. Only {@code {stream}} and
 * {@code {topic}} differ between pairs; so rendering each pair's template at one fixed time, partition and field value
 * gives the shortest key of each pair.
 */
final class ObjectKeys {
    /** The shortest rendering: epoch 0 (a one-digit {timestamp}), partition 0, an empty field value. */
    private static final long SAMPLE_TIME = 0L;

    private ObjectKeys() {
    }

    static void check(Table plugin, List<StreamDto> streams, PluginConfigDto config) {
        String extension = config.outputFormat().extension() + config.compression().suffix();
        String prefix = config.prefix();
        int shortest = KeyRules.keyBytes(ObjectKey.of(prefix, "", 0, 0, 0, extension));
        if (shortest > KeyRules.MAX_KEY_BYTES) {
            plugin.error("prefix", "object keys would be at least " + shortest + " bytes long (S3 allows "
                    + KeyRules.MAX_KEY_BYTES + ")");
            return;
        }
        PathTemplate template = PathTemplate.parse(config.pathTemplate());
        List<PartitionRef> pairs = new ArrayList<>();
        boolean tooLong = false;
        boolean dlqTooLong = false;
        for (StreamDto stream : streams) {
            for (String topic : stream.topics()) {
                PartitionRef pair = new PartitionRef(stream.stream(), topic, 0);
                String key = ObjectKey.of(prefix, template.render(pair, SAMPLE_TIME, config.timezone(),
                        path -> Optional.of(""), config.missingFieldPlaceholder()), 0, 0, 0, extension);
                int bytes = KeyRules.keyBytes(key);
                if (!tooLong && bytes > KeyRules.MAX_KEY_BYTES) {
                    tooLong = true;
                    plugin.error("path_template", "object keys of " + describe(pair) + " would be at least " + bytes
                            + " bytes long (S3 allows " + KeyRules.MAX_KEY_BYTES + ")");
                }
                int dlqBytes = KeyRules.keyBytes(deadLetterKey(prefix, config.dlqPrefix(), pair));
                if (!dlqTooLong && dlqBytes > KeyRules.MAX_KEY_BYTES) {
                    dlqTooLong = true;
                    plugin.error("dlq_prefix", "dead-letter keys of " + describe(pair) + " would be at least "
                            + dlqBytes + " bytes long (S3 allows " + KeyRules.MAX_KEY_BYTES + ")");
                }
                pairs.add(pair);
            }
        }
        KeyRules.collisions(config.pathTemplate(), config.timezone(), config.missingFieldPlaceholder(), pairs)
                .forEach(problem -> plugin.error("path_template", problem));
    }

    /** The shortest dead-letter key of a pair; its layout is the application's DeadLetters key. */
    private static String deadLetterKey(String prefix, String dlqPrefix, PartitionRef pair) {
        return (prefix.isEmpty() ? "" : prefix + "/") + dlqPrefix + "/" + KeySanitizer.sanitize(pair.stream()) + "/"
                + KeySanitizer.sanitize(pair.topic()) + "/00000-" + "0".repeat(20) + ".json";
    }

    private static String describe(PartitionRef pair) {
        return "stream " + StoreRules.quote(pair.stream()) + " topic " + StoreRules.quote(pair.topic());
    }
}
