package dev.iggysink.bootstrap;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPInputStream;

/**
 * First and last offset written inside a json_lines / json_array object (with metadata, the wrapper starts with
 * {@code {"offset":N}). Other formats are not read: the audit then trusts the key.
 */
final class ContentOffsets {
    private static final Pattern OFFSET = Pattern.compile("\\{\"offset\":(\\d+),\"timestamp\":");

    private ContentOffsets() {
    }

    static Optional<long[]> read(String key, byte[] content) {
        byte[] bytes = content;
        String name = key;
        if (name.endsWith(".gz")) {
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(content))) {
                bytes = in.readAllBytes();
            } catch (IOException e) {
                return Optional.empty();
            }
            name = name.substring(0, name.length() - 3);
        }
        if (!name.endsWith(".jsonl") && !name.endsWith(".json")) return Optional.empty();
        String text = new String(bytes, StandardCharsets.UTF_8);
        Matcher m = OFFSET.matcher(text);
        long first = -1;
        long last = -1;
        // Only wrappers at the start of a line (jsonl) or after '[' / ',' (json array) count; payloads may nest.
        while (m.find()) {
            int at = m.start();
            char before = at == 0 ? '\n' : text.charAt(at - 1);
            if (before != '\n' && before != '[' && before != ',') continue;
            long offset = Long.parseLong(m.group(1));
            if (first < 0) first = offset;
            last = offset;
        }
        return first < 0 ? Optional.empty() : Optional.of(new long[] {first, last});
    }
}
