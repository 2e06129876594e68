package dev.iggysink.domain.naming;

import dev.iggysink.domain.message.PartitionRef;
import java.nio.charset.StandardCharsets;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What every object key of a sink must be, on every supported store. The config check ({@code validate}) and the
 * pipeline both ask here, so each rule and its words exist once.
 *
 * <ul>
 *   <li>Each segment between slashes can be stored: none is empty, {@code .} or {@code ..} (the filesystem store and
 *   MinIO refuse such a segment, and file-system backed stores resolve it).</li>
 *   <li>No two (stream, topic) pairs of one sink write the same keys: the second upload would overwrite the first,
 *   and both offsets would be committed.</li>
 *   <li>No key is longer than {@link #MAX_KEY_BYTES} UTF-8 bytes, S3's limit; every store is held to it, so a
 *   sink's keys stay valid when it moves between stores.</li>
 * </ul>
 */
public final class KeyRules {
    /** Why a segment is refused, as messages say it. */
    public static final String SEGMENT_RULE = "object keys must not have empty, . or .. segments";
    /** S3's limit on an object key, in UTF-8 bytes. */
    public static final int MAX_KEY_BYTES = 1024;
    /** Values longer than this are shortened in messages (a 5,000-character name stays one readable line). */
    private static final int SHOWN = 40;

    private KeyRules() {
    }

    /**
     * The first segment of {@code path} (split at {@code /}) that no supported store accepts: {@code ""}, {@code .}
     * or {@code ..}. Empty when every segment is fine; an empty path has no segment.
     */
    public static Optional<String> badSegment(String path) {
        Objects.requireNonNull(path, "path");
        if (path.isEmpty()) return Optional.empty();
        for (String segment : path.split("/", -1)) {
            if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) return Optional.of(segment);
        }
        return Optional.empty();
    }

    /**
     * What is wrong with the segments of {@code path}, in words ({@code "a//b" has an empty segment (...)}), or empty
     * when {@link #badSegment} finds nothing.
     */
    public static Optional<String> segmentProblem(String path) {
        return badSegment(path).map(segment -> quote(path)
                + (segment.isEmpty() ? " has an empty segment" : " has a " + quote(segment) + " segment")
                + " (" + SEGMENT_RULE + ")");
    }

    /** The length S3 measures a key by: its UTF-8 bytes, not its characters. */
    public static int keyBytes(String key) {
        return key.getBytes(StandardCharsets.UTF_8).length;
    }

    /**
     * The (stream, topic) pairs of one sink that would write the same object keys as an earlier pair of
     * {@code pairs}, one message each in the order of {@code pairs}; empty when all differ. A pair listed twice is
     * not a collision.
     *
     * <p>Only {@code {stream}} and {@code {topic}} differ between pairs; time, {@code {field:...}} and
     * {@code {partition}} are the same function of the record for every pair (prefix and extension too). So
     * rendering each pair's template at one fixed time, partition and field value and comparing the keys finds every
     * pair that sanitising or a template without {@code {stream}}/{@code {topic}} makes collide. (Only a template
     * that glues {@code {stream}} or {@code {topic}} directly to another variable could make two pairs meet at some
     * other time; that is not caught.)
     */
    public static List<String> collisions(String pathTemplate, ZoneId zone, String missingPlaceholder,
                                          List<PartitionRef> pairs) {
        Objects.requireNonNull(pathTemplate, "pathTemplate");
        PathTemplate template = PathTemplate.parse(pathTemplate);
        Map<String, PartitionRef> byKey = new LinkedHashMap<>();
        List<String> problems = new ArrayList<>();
        for (PartitionRef pair : pairs) {
            PartitionRef sample = new PartitionRef(pair.stream(), pair.topic(), 0);
            String key = ObjectKey.of("", template.render(sample, 0L, zone, path -> Optional.of(""),
                    missingPlaceholder), 0, 0, 0, "");
            PartitionRef first = byKey.putIfAbsent(key, sample);
            if (first != null && !first.equals(sample)) {
                problems.add(describe(first) + " and " + describe(sample) + " would write the same object keys ("
                        + why(pathTemplate, first, sample) + ")");
            }
        }
        return problems;
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
        return "stream " + quote(pair.stream()) + " topic " + quote(pair.topic());
    }

    /** A value in a message: quoted, control characters escaped, long ones shortened with their length. */
    public static String quote(String value) {
        boolean shorten = value.length() > SHOWN + 24;
        String shown = shorten ? value.substring(0, SHOWN) : value;
        StringBuilder sb = new StringBuilder(shown.length() + 16).append('"');
        for (int i = 0; i < shown.length(); i++) {
            char c = shown.charAt(i);
            if (c < 0x20 || c == 0x7f) sb.append(String.format("\\u%04x", (int) c));
            else sb.append(c);
        }
        if (shorten) return sb.append("...\" (").append(value.length()).append(" characters)").toString();
        return sb.append('"').toString();
    }
}
