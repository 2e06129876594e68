package dev.iggysink.domain.completeness;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * What one partition has made durable and committed, as its owner publishes it for the group: the group's offset is
 * {@code committed}, every offset up to {@code listedUpTo} (at least {@code committed}: progress is published before
 * the commit it allows) is in a durable object, {@code files} lists those in folders not yet marked, and no record
 * the partition will ever hold past {@code committed} is older than {@code completeBeforeMicros}. Records up to
 * {@code committed} older than {@code knownSinceMicros} may be in objects this progress does not list (it was started
 * after them); {@link Long#MIN_VALUE} when it lists every one. {@code heldBy} says why the partition does not move
 * (halted), when it does not. {@code idle}: nothing past {@code committed} existed when its end offset was last read,
 * so its complete-before time follows the clock rather than its records (the status says which it waits for).
 */
public record PartitionProgress(int partition, long committed, long listedUpTo, long completeBeforeMicros,
                                long knownSinceMicros,
                                Optional<String> heldBy, boolean idle, List<FileEntry> files) {
    private static final String MAGIC = "iggy-sink-progress 1";

    public PartitionProgress {
        Objects.requireNonNull(heldBy, "heldBy");
        files = List.copyOf(files);
    }

    /** A partition that is not idle. */
    public PartitionProgress(int partition, long committed, long listedUpTo, long completeBeforeMicros,
                             long knownSinceMicros, Optional<String> heldBy, List<FileEntry> files) {
        this(partition, committed, listedUpTo, completeBeforeMicros, knownSinceMicros, heldBy, false, files);
    }

    /** The object's bytes: one line a field, one a file; tabs and line breaks in text escaped. */
    public byte[] encode() {
        StringBuilder out = new StringBuilder(MAGIC).append('\n');
        out.append("partition\t").append(partition).append('\n');
        out.append("committed\t").append(committed).append('\n');
        out.append("listed-up-to\t").append(listedUpTo).append('\n');
        out.append("complete-before\t").append(completeBeforeMicros).append('\n');
        out.append("known-since\t").append(knownSinceMicros).append('\n');
        heldBy.ifPresent(h -> out.append("held-by\t").append(escape(h)).append('\n'));
        if (idle) out.append("idle\t1\n");
        for (FileEntry f : files) {
            out.append("file\t").append(escape(f.folder())).append('\t').append(escape(f.key())).append('\t')
                    .append(f.firstOffset()).append('\t').append(f.lastOffset()).append('\t').append(f.records())
                    .append('\t').append(f.size()).append('\t').append(f.crc32c()).append('\t')
                    .append(f.firstMicros()).append('\t').append(f.lastMicros()).append('\n');
        }
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** Reads what {@link #encode()} wrote; empty when {@code bytes} is no progress object of this version. */
    public static Optional<PartitionProgress> decode(byte[] bytes) {
        String[] lines = new String(bytes, StandardCharsets.UTF_8).split("\n");
        if (lines.length == 0 || !lines[0].equals(MAGIC)) return Optional.empty();
        int partition = -1;
        long committed = Long.MIN_VALUE;
        long listed = Long.MIN_VALUE;
        long before = Long.MIN_VALUE;
        long since = Long.MIN_VALUE;
        String held = null;
        boolean idle = false;
        List<FileEntry> files = new ArrayList<>();
        try {
            for (int i = 1; i < lines.length; i++) {
                String[] f = lines[i].split("\t", -1);
                switch (f[0]) {
                    case "partition" -> partition = Integer.parseInt(f[1]);
                    case "committed" -> committed = Long.parseLong(f[1]);
                    case "listed-up-to" -> listed = Long.parseLong(f[1]);
                    case "complete-before" -> before = Long.parseLong(f[1]);
                    case "known-since" -> since = Long.parseLong(f[1]);
                    case "held-by" -> held = unescape(f[1]);
                    case "idle" -> idle = f[1].equals("1");
                    case "file" -> files.add(new FileEntry(unescape(f[1]), unescape(f[2]), partition,
                            Long.parseLong(f[3]), Long.parseLong(f[4]), Long.parseLong(f[5]), Long.parseLong(f[6]),
                            Long.parseLong(f[7]), Long.parseLong(f[8]), Long.parseLong(f[9])));
                    default -> {
                        // a field of a later version: ignored
                    }
                }
            }
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        if (partition < 0 || committed == Long.MIN_VALUE || listed < committed) return Optional.empty();
        return Optional.of(new PartitionProgress(partition, committed, listed, before, since, Optional.ofNullable(held),
                idle, files));
    }

    private static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r");
    }

    private static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char n = s.charAt(++i);
                out.append(n == 't' ? '\t' : n == 'n' ? '\n' : n == 'r' ? '\r' : n);
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
