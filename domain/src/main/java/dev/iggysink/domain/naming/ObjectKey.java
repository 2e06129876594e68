package dev.iggysink.domain.naming;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The object key of a sealed file: {@code [prefix/]path/PPPPP-FFFFFFFFFFFFFFFFFFFF-LLLLLLLLLLLLLLLLLLLL.ext}.
 * The 5-digit partition and 20-digit offsets match the Rust sink's keys byte for byte; re-reading the same offsets must give
 * the same key, which is what makes a re-upload after a crash overwrite instead of duplicate. Do not change them.
 */
public final class ObjectKey {
    private static final Pattern FILE_NAME = Pattern.compile("(\\d{5,})-(\\d{20})-(\\d{20})(?:\\.([^/]*))?");
    private static final Pattern FIRST_ONLY = Pattern.compile("(\\d{5,})-(\\d{20})(?:\\.([^/]*))?");

    private ObjectKey() {
    }

    /**
     * @param prefix       may be null or empty (no prefix); slashes at both ends are dropped
     * @param renderedPath the rendered template; slashes at both ends are dropped, empty means no directory
     * @param extension    without the dot ({@code jsonl}); a leading dot is tolerated; empty means none
     */
    public static String of(String prefix, String renderedPath, int partitionId, long firstOffset, long lastOffset,
                            String extension) {
        Objects.requireNonNull(renderedPath, "renderedPath");
        Objects.requireNonNull(extension, "extension");
        if (partitionId < 0) throw new IllegalArgumentException("partition id must be >= 0, was " + partitionId);
        if (firstOffset < 0) throw new IllegalArgumentException("first offset must be >= 0, was " + firstOffset);
        if (lastOffset < firstOffset) {
            throw new IllegalArgumentException("last offset " + lastOffset + " < first offset " + firstOffset);
        }
        StringBuilder key = new StringBuilder(96);
        String p = prefix == null ? "" : trimSlashes(prefix);
        if (!p.isEmpty()) key.append(p).append('/');
        String path = trimSlashes(renderedPath);
        if (!path.isEmpty()) key.append(path).append('/');
        pad(key, partitionId, 5).append('-');
        pad(key, firstOffset, 20).append('-');
        pad(key, lastOffset, 20);
        String ext = extension.startsWith(".") ? extension.substring(1) : extension;
        if (!ext.isEmpty()) key.append('.').append(ext);
        return key.toString();
    }

    /**
     * The key of a file under the first-offset layout: {@code [prefix/]path/PPPPP-FFFFFFFFFFFFFFFFFFFF.ext}. It names
     * only where the file starts, so every member that starts a file of the partition at one offset meets the others
     * at one key, and a conditional write there decides the cut (docs/adr/0019-one-conditional-write-per-file.md).
     */
    public static String ofFirst(String prefix, String renderedPath, int partitionId, long firstOffset,
                                 String extension) {
        String full = of(prefix, renderedPath, partitionId, firstOffset, firstOffset, extension);
        int name = full.lastIndexOf('/') + 1;
        // PPPPP-FFFF...-LLLL...: the last "-" and its 20 digits go.
        int lastDash = full.indexOf('-', full.indexOf('-', name) + 1);
        return full.substring(0, lastDash) + full.substring(lastDash + 21);
    }

    /** The partition and offsets of a key written by {@link #of}; empty for any other key. */
    public static Optional<KeyRange> parse(String key) {
        return match(key).flatMap(m -> {
            try {
                long first = Long.parseLong(m.group(2));
                long last = Long.parseLong(m.group(3));
                int partition = Integer.parseInt(m.group(1));
                return first <= last ? Optional.of(new KeyRange(partition, first, last)) : Optional.empty();
            } catch (NumberFormatException tooLarge) {
                return Optional.empty();
            }
        });
    }

    /**
     * The partition and first offset of a key written by {@link #ofFirst} (as a range of that one offset: the key does
     * not name its last, the object's metadata does); empty for any other key.
     */
    public static Optional<KeyRange> parseFirst(String key) {
        Objects.requireNonNull(key, "key");
        Matcher m = FIRST_ONLY.matcher(key.substring(key.lastIndexOf('/') + 1));
        if (!m.matches()) return Optional.empty();
        try {
            long first = Long.parseLong(m.group(2));
            return Optional.of(new KeyRange(Integer.parseInt(m.group(1)), first, first));
        } catch (NumberFormatException tooLarge) {
            return Optional.empty();
        }
    }

    /** The extension (without the dot) of a key written by {@link #of}; empty when none or not such a key. */
    public static Optional<String> extension(String key) {
        return parse(key).flatMap(r -> match(key)).map(m -> m.group(4)).filter(e -> !e.isEmpty());
    }

    private static Optional<Matcher> match(String key) {
        Objects.requireNonNull(key, "key");
        String name = key.substring(key.lastIndexOf('/') + 1);
        Matcher m = FILE_NAME.matcher(name);
        return m.matches() ? Optional.of(m) : Optional.empty();
    }

    /** {@code s} without the slashes at either end, as a rendered path goes into a key. */
    public static String trimSlashes(String s) {
        int from = 0;
        int to = s.length();
        while (from < to && s.charAt(from) == '/') from++;
        while (to > from && s.charAt(to - 1) == '/') to--;
        return s.substring(from, to);
    }

    private static StringBuilder pad(StringBuilder sb, long value, int width) {
        String digits = Long.toString(value);
        for (int i = digits.length(); i < width; i++) sb.append('0');
        return sb.append(digits);
    }
}
