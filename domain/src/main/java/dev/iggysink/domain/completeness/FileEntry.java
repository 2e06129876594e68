package dev.iggysink.domain.completeness;

import java.util.Objects;

/**
 * One durable data object as a completeness marker lists it: its folder (the key without the file name), key,
 * partition, offset range, record count, size, CRC32C ({@code -1} when not known) and the time of its first and last
 * record (microseconds since the epoch).
 */
public record FileEntry(String folder, String key, int partition, long firstOffset, long lastOffset, long records,
                        long size, long crc32c, long firstMicros, long lastMicros) {
    public FileEntry {
        Objects.requireNonNull(folder, "folder");
        Objects.requireNonNull(key, "key");
        if (lastOffset < firstOffset) throw new IllegalArgumentException("offsets " + firstOffset + "-" + lastOffset);
    }

    /** The folder of {@code key}: everything before its last {@code /} (empty for a key at the root). */
    public static String folderOf(String key) {
        int slash = key.lastIndexOf('/');
        return slash < 0 ? "" : key.substring(0, slash);
    }
}
