package dev.iggysink.domain.completeness;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Combines the progress of every partition of a topic into the completeness markers that are due: a folder is
 * marked once every partition has passed its window (its records older than the window's end are all committed,
 * and its progress knows its history back before the window's start). Any member may combine: every progress
 * snapshot is consistent on its own, so every member that finds a folder due computes the same body. Stateless.
 */
public final class Markers {
    private static final Pattern OBJECT = Pattern.compile("^ *\\{\"key\": \"((?:[^\"\\\\]|\\\\.)*)\", \"size\": (-?\\d+),"
            + " \"crc32c\": (null|\"[0-9a-f]{8}\"), \"partition\": (\\d+), \"first_offset\": (\\d+),"
            + " \"last_offset\": (\\d+), \"records\": (\\d+), \"first_time_us\": (-?\\d+), \"last_time_us\": (-?\\d+)\\},?$");
    private static final Pattern VERSION = Pattern.compile("\"version\": (\\d+),");

    private Markers() {
    }

    /** The window {from, to} in microseconds of a folder whose first record has the given time. */
    public interface Windows {
        long[] window(long firstRecordMicros);
    }

    /** What a marker names besides its folder: its own name, the sink's key, the group, the stream and topic. */
    public record Header(String name, String sink, String group, String stream, String topic) {
        public Header {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(sink, "sink");
            Objects.requireNonNull(group, "group");
            Objects.requireNonNull(stream, "stream");
            Objects.requireNonNull(topic, "topic");
        }
    }

    /** One folder's marker: its window and the exact objects that hold its records. */
    public record Marker(String folder, long fromMicros, long toMicros, List<FileEntry> files) {
        public Marker {
            files = files.stream().sorted(Comparator.comparingInt(FileEntry::partition)
                    .thenComparingLong(FileEntry::firstOffset).thenComparing(FileEntry::key)).toList();
        }

        public long records() {
            long n = 0;
            for (FileEntry f : files) n += f.records();
            return n;
        }

        /** The marker object's key: the folder, then the marker's name. */
        public String key(String name) {
            return folder.isEmpty() ? name : folder + "/" + name;
        }

        /** The marker's JSON body; the same files give the same bytes, whoever writes it. */
        public byte[] json(Header h, int version) {
            StringBuilder o = new StringBuilder(512 + 256 * files.size());
            o.append("{\n");
            o.append("  \"marker\": ").append(str(h.name())).append(",\n");
            o.append("  \"version\": ").append(version).append(",\n");
            o.append("  \"sink\": ").append(str(h.sink())).append(",\n");
            o.append("  \"group\": ").append(str(h.group())).append(",\n");
            o.append("  \"stream\": ").append(str(h.stream())).append(",\n");
            o.append("  \"topic\": ").append(str(h.topic())).append(",\n");
            o.append("  \"folder\": ").append(str(folder)).append(",\n");
            o.append("  \"window\": {\"from\": ").append(str(time(fromMicros))).append(", \"to\": ")
                    .append(str(time(toMicros))).append("},\n");
            o.append("  \"records\": ").append(records()).append(",\n");
            o.append("  \"partitions\": [\n");
            Map<Integer, long[]> ranges = new TreeMap<>();
            for (FileEntry f : files) {
                long[] r = ranges.computeIfAbsent(f.partition(), p -> new long[] {Long.MAX_VALUE, -1, 0});
                r[0] = Math.min(r[0], f.firstOffset());
                r[1] = Math.max(r[1], f.lastOffset());
                r[2] += f.records();
            }
            int i = 0;
            for (Map.Entry<Integer, long[]> e : ranges.entrySet()) {
                o.append("    {\"partition\": ").append(e.getKey()).append(", \"first_offset\": ")
                        .append(e.getValue()[0]).append(", \"last_offset\": ").append(e.getValue()[1])
                        .append(", \"records\": ").append(e.getValue()[2]).append('}')
                        .append(++i < ranges.size() ? ",\n" : "\n");
            }
            o.append("  ],\n");
            o.append("  \"objects\": [\n");
            i = 0;
            for (FileEntry f : files) {
                o.append("    {\"key\": ").append(str(f.key())).append(", \"size\": ").append(f.size())
                        .append(", \"crc32c\": ").append(f.crc32c() < 0 ? "null"
                                : "\"" + String.format("%08x", f.crc32c()) + "\"")
                        .append(", \"partition\": ").append(f.partition()).append(", \"first_offset\": ")
                        .append(f.firstOffset()).append(", \"last_offset\": ").append(f.lastOffset())
                        .append(", \"records\": ").append(f.records()).append(", \"first_time_us\": ")
                        .append(f.firstMicros()).append(", \"last_time_us\": ").append(f.lastMicros()).append('}')
                        .append(++i < files.size() ? ",\n" : "\n");
            }
            o.append("  ]\n}\n");
            return o.toString().getBytes(StandardCharsets.UTF_8);
        }
    }

    /** The markers due now, oldest window first, and why the oldest folder not yet due waits (empty when none). */
    public record Plan(List<Marker> due, Optional<String> oldestWaiting) {
        public Plan {
            due = List.copyOf(due);
            Objects.requireNonNull(oldestWaiting, "oldestWaiting");
        }
    }

    /**
     * @param partitions the topic's partitions: each must have passed a window before it is marked
     * @param progress   the progress object of each partition that has one
     */
    public static Plan plan(List<Integer> partitions, Map<Integer, PartitionProgress> progress, Windows windows) {
        return plan(partitions, progress, List.of(), windows);
    }

    /**
     * @param redriven objects that redrive wrote (ADR 0018): listed in their folder's marker like the partitions'
     *                 files; their offsets were committed before they were written, so they hold back nothing
     */
    public static Plan plan(List<Integer> partitions, Map<Integer, PartitionProgress> progress,
                            List<FileEntry> redriven, Windows windows) {
        Map<String, Map<String, FileEntry>> byFolder = new TreeMap<>();
        for (PartitionProgress p : progress.values()) {
            for (FileEntry f : p.files()) byFolder.computeIfAbsent(f.folder(), x -> new LinkedHashMap<>())
                    .putIfAbsent(f.key(), f);
        }
        Set<String> late = new HashSet<>();
        for (FileEntry f : redriven) {
            if (byFolder.computeIfAbsent(f.folder(), x -> new LinkedHashMap<>()).putIfAbsent(f.key(), f) == null) {
                late.add(f.key());
            }
        }
        List<Marker> due = new ArrayList<>();
        long waitingFrom = Long.MAX_VALUE;
        String waiting = null;
        for (Map.Entry<String, Map<String, FileEntry>> e : byFolder.entrySet()) {
            long first = Long.MAX_VALUE;
            for (FileEntry f : e.getValue().values()) first = Math.min(first, f.firstMicros());
            long[] w = windows.window(first);
            Optional<String> why = Optional.empty();
            for (int p : partitions) {
                why = holds(p, progress.get(p), w);
                if (why.isPresent()) break;
            }
            for (FileEntry f : e.getValue().values()) {
                PartitionProgress of = progress.get(f.partition());
                if (why.isEmpty() && of != null && f.lastOffset() > of.committed() && !late.contains(f.key())) {
                    why = Optional.of("partition " + f.partition() + " has not committed " + f.key() + " yet");
                }
            }
            if (why.isEmpty()) {
                due.add(new Marker(e.getKey(), w[0], w[1], new ArrayList<>(e.getValue().values())));
            } else if (w[0] < waitingFrom) {
                waitingFrom = w[0];
                waiting = "folder " + e.getKey() + " (" + time(w[0]) + " to " + time(w[1]) + ") is not marked yet: "
                        + why.get();
            }
        }
        due.sort(Comparator.comparingLong(Marker::fromMicros).thenComparing(Marker::folder));
        return new Plan(due, Optional.ofNullable(waiting));
    }

    /** Why partition {@code p} holds back the window {@code w}, or empty when it has passed it. */
    private static Optional<String> holds(int p, PartitionProgress progress, long[] w) {
        if (progress == null) return Optional.of("partition " + p + " has published no progress yet");
        if (progress.knownSinceMicros() >= w[0]) {
            return Optional.of("partition " + p + " is known only from " + time(progress.knownSinceMicros())
                    + " on (markers were turned on, or its progress lost, after this window; it is never marked)");
        }
        if (progress.completeBeforeMicros() >= w[1]) return Optional.empty();
        String upTo = progress.completeBeforeMicros() == Long.MIN_VALUE ? "nothing committed yet"
                : "complete only up to " + time(progress.completeBeforeMicros()) + " at offset " + progress.committed();
        String why = progress.heldBy().map(h -> "; it is held: " + h)
                .orElse(progress.idle() ? "; it is idle (nothing past that offset when its end was read): it passes"
                        + " the window once the clock, less a margin for clock skew, does"
                        : "; its records past that offset are not committed yet (being read, in an open file or"
                        + " uploading, or its member is behind)");
        return Optional.of("partition " + p + " is " + upTo + why);
    }

    /** The objects a marker written by {@link Marker#json} lists, read back from its bytes. */
    public static List<FileEntry> objectsOf(byte[] marker, String folder) {
        List<FileEntry> out = new ArrayList<>();
        for (String line : new String(marker, StandardCharsets.UTF_8).split("\n")) {
            Matcher m = OBJECT.matcher(line);
            if (!m.matches()) continue;
            String crc = m.group(3);
            out.add(new FileEntry(folder, unquote(m.group(1)), Integer.parseInt(m.group(4)),
                    Long.parseLong(m.group(5)), Long.parseLong(m.group(6)), Long.parseLong(m.group(7)),
                    Long.parseLong(m.group(2)), crc.equals("null") ? -1 : Long.parseLong(crc.substring(1, 9), 16),
                    Long.parseLong(m.group(8)), Long.parseLong(m.group(9))));
        }
        return out;
    }

    /** The version a marker's body states (1 when it states none). */
    public static int versionOf(byte[] marker) {
        Matcher m = VERSION.matcher(new String(marker, StandardCharsets.UTF_8));
        return m.find() ? Integer.parseInt(m.group(1)) : 1;
    }

    static String time(long micros) {
        if (micros == Long.MIN_VALUE) return "the beginning";
        if (micros == Long.MAX_VALUE) return "the end";
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS).toString();
    }

    private static String str(String s) {
        StringBuilder o = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> o.append("\\\"");
                case '\\' -> o.append("\\\\");
                case '\n' -> o.append("\\n");
                case '\r' -> o.append("\\r");
                case '\t' -> o.append("\\t");
                default -> {
                    if (c < 0x20) o.append(String.format("\\u%04x", (int) c));
                    else o.append(c);
                }
            }
        }
        return o.append('"').toString();
    }

    private static String unquote(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c != '\\' || i + 1 >= s.length()) {
                out.append(c);
                continue;
            }
            char n = s.charAt(++i);
            switch (n) {
                case 'n' -> out.append('\n');
                case 'r' -> out.append('\r');
                case 't' -> out.append('\t');
                case 'u' -> {
                    out.append((char) Integer.parseInt(s.substring(i + 1, i + 5), 16));
                    i += 4;
                }
                default -> out.append(n);
            }
        }
        return out.toString();
    }
}
