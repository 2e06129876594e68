package dev.iggysink.domain.naming;

import dev.iggysink.domain.message.PartitionRef;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * A parsed {@code path_template}. Variables: {@code {stream}} {@code {topic}} (sanitised), {@code {partition}}
 * (unpadded), {@code {date}} (yyyy-MM-dd), {@code {hour}} {@code {minute}} {@code {year}} {@code {month}}
 * {@code {day}}, {@code {timestamp}} (epoch milliseconds) and {@code {field:dotted.path}} (sanitised, or the
 * missing placeholder). Time variables come from the timestamp passed in (the file's first record) in the given
 * zone; upstream uses UTC. Anything else in braces, and all literal text, is kept as written. Immutable.
 */
public final class PathTemplate {
    private static final String FIELD = "field:";
    private static final String VARIABLES = " (variables: {stream}, {topic}, {partition}, {date}, {hour}, {minute}, "
            + "{year}, {month}, {day}, {timestamp}, {field:dotted.path})";

    private enum Kind { LITERAL, STREAM, TOPIC, PARTITION, DATE, HOUR, MINUTE, YEAR, MONTH, DAY, TIMESTAMP, FIELD }

    private record Part(Kind kind, String text) {
        boolean isTime() {
            return switch (kind) {
                case DATE, HOUR, MINUTE, YEAR, MONTH, DAY, TIMESTAMP -> true;
                default -> false;
            };
        }
    }

    private final String template;
    private final List<Part> parts;
    private final boolean usesFields;
    private final boolean usesTime;

    private PathTemplate(String template, List<Part> parts) {
        this.template = template;
        this.parts = List.copyOf(parts);
        this.usesFields = parts.stream().anyMatch(p -> p.kind == Kind.FIELD);
        this.usesTime = parts.stream().anyMatch(Part::isTime);
    }

    public static PathTemplate parse(String template) {
        Objects.requireNonNull(template, "template");
        List<Part> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int i = 0;
        while (i < template.length()) {
            int open = template.indexOf('{', i);
            if (open < 0) {
                literal.append(template, i, template.length());
                break;
            }
            literal.append(template, i, open);
            int close = template.indexOf('}', open + 1);
            if (close < 0) {
                literal.append(template, open, template.length());
                break;
            }
            String name = template.substring(open + 1, close);
            Part variable = variable(name);
            if (variable == null || name.indexOf('{') >= 0) {
                // Not a variable: keep the brace literally and rescan after it, so "{{stream}" still finds {stream}.
                literal.append('{');
                i = open + 1;
                continue;
            }
            if (literal.length() > 0) {
                parts.add(new Part(Kind.LITERAL, literal.toString()));
                literal.setLength(0);
            }
            parts.add(variable);
            i = close + 1;
        }
        if (literal.length() > 0) parts.add(new Part(Kind.LITERAL, literal.toString()));
        return new PathTemplate(template, parts);
    }

    /**
     * What is wrong with a template, for the config check: a brace that is not part of a known variable (an unknown
     * name, an unclosed or stray brace, {@code {field:}} without a path). {@link #parse} stays lenient and keeps such
     * text literally; a configuration is refused before it gets there.
     */
    public static Optional<String> problem(String template) {
        Objects.requireNonNull(template, "template");
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '}') {
                return Optional.of("} at character " + (i + 1) + " closes no variable" + VARIABLES);
            }
            if (c != '{') {
                i++;
                continue;
            }
            int close = template.indexOf('}', i + 1);
            int end = i + 1;
            while (end < template.length() && "{}/".indexOf(template.charAt(end)) < 0) end++;
            if (close < 0 || end < close) {
                return Optional.of(template.substring(i, end) + " is not closed (character " + (i + 1) + ")"
                        + VARIABLES);
            }
            String name = template.substring(i + 1, close);
            if (name.equals(FIELD)) {
                return Optional.of("{field:} names no field (e.g. {field:user.id})" + VARIABLES);
            }
            if (variable(name) == null) {
                return Optional.of("unknown variable {" + name + "}" + VARIABLES);
            }
            i = close + 1;
        }
        return Optional.empty();
    }

    private static Part variable(String name) {
        if (name.startsWith(FIELD)) {
            String path = name.substring(FIELD.length());
            return path.isEmpty() ? null : new Part(Kind.FIELD, path);
        }
        Kind kind = switch (name) {
            case "stream" -> Kind.STREAM;
            case "topic" -> Kind.TOPIC;
            case "partition" -> Kind.PARTITION;
            case "date" -> Kind.DATE;
            case "hour" -> Kind.HOUR;
            case "minute" -> Kind.MINUTE;
            case "year" -> Kind.YEAR;
            case "month" -> Kind.MONTH;
            case "day" -> Kind.DAY;
            case "timestamp" -> Kind.TIMESTAMP;
            default -> null;
        };
        return kind == null ? null : new Part(kind, name);
    }

    /**
     * @param timestampMicros    the file's first record timestamp, microseconds since the epoch
     * @param missingPlaceholder written (sanitised) for a {@code {field:...}} the record does not have
     */
    public String render(PartitionRef partition, long timestampMicros, ZoneId zone, FieldLookup fields,
                         String missingPlaceholder) {
        Objects.requireNonNull(partition, "partition");
        Objects.requireNonNull(zone, "zone");
        Objects.requireNonNull(fields, "fields");
        Objects.requireNonNull(missingPlaceholder, "missingPlaceholder");
        ZonedDateTime time = usesTime
                ? Instant.ofEpochSecond(Math.floorDiv(timestampMicros, 1_000_000L),
                        Math.floorMod(timestampMicros, 1_000_000L) * 1_000L).atZone(zone)
                : null;
        StringBuilder out = new StringBuilder(template.length() + 32);
        for (Part part : parts) {
            switch (part.kind) {
                case LITERAL -> out.append(part.text);
                case STREAM -> out.append(KeySanitizer.sanitize(partition.stream()));
                case TOPIC -> out.append(KeySanitizer.sanitize(partition.topic()));
                case PARTITION -> out.append(partition.partitionId());
                case DATE -> pad(pad(pad(out, time.getYear(), 4).append('-'), time.getMonthValue(), 2).append('-'),
                        time.getDayOfMonth(), 2);
                case HOUR -> pad(out, time.getHour(), 2);
                case MINUTE -> pad(out, time.getMinute(), 2);
                case YEAR -> pad(out, time.getYear(), 4);
                case MONTH -> pad(out, time.getMonthValue(), 2);
                case DAY -> pad(out, time.getDayOfMonth(), 2);
                case TIMESTAMP -> out.append(Math.floorDiv(timestampMicros, 1_000L));
                case FIELD -> out.append(KeySanitizer.sanitize(fields.field(part.text).orElse(missingPlaceholder)));
            }
        }
        return out.toString();
    }

    /**
     * The text every key rendered for this stream and topic starts with: the literal text, with {@code {stream}}
     * and {@code {topic}} filled in (sanitised), up to the first variable that depends on the partition, the time or
     * a record. A reader lists objects under it to find a topic's files.
     */
    public String fixedPrefix(String stream, String topic) {
        Objects.requireNonNull(stream, "stream");
        Objects.requireNonNull(topic, "topic");
        StringBuilder out = new StringBuilder();
        for (Part part : parts) {
            switch (part.kind) {
                case LITERAL -> out.append(part.text);
                case STREAM -> out.append(KeySanitizer.sanitize(stream));
                case TOPIC -> out.append(KeySanitizer.sanitize(topic));
                default -> {
                    return out.toString();
                }
            }
        }
        return out.toString();
    }

    /**
     * The time unit of the folders this template renders (its finest time variable), or why its folders are no
     * time window: a completeness marker needs every coarser unit named too ({@code {hour}} without a date renders
     * the same folder every day), and {@code {timestamp}} names a millisecond, not a window.
     */
    public Optional<String> windowProblem() {
        java.util.EnumSet<Kind> kinds = java.util.EnumSet.noneOf(Kind.class);
        for (Part p : parts) kinds.add(p.kind);
        if (kinds.contains(Kind.TIMESTAMP)) return Optional.of("{timestamp} names a millisecond, not a window");
        boolean year = kinds.contains(Kind.DATE) || kinds.contains(Kind.YEAR);
        boolean month = kinds.contains(Kind.DATE) || kinds.contains(Kind.MONTH);
        boolean day = kinds.contains(Kind.DATE) || kinds.contains(Kind.DAY);
        if (!year) return Optional.of("it has no {date} or {year}: its folders are no time window");
        if (kinds.contains(Kind.MINUTE) && !kinds.contains(Kind.HOUR)) return Optional.of("{minute} needs {hour}");
        if (kinds.contains(Kind.HOUR) && !day) return Optional.of("{hour} needs {date} (or {day})");
        if (day && !month) return Optional.of("{day} needs {month}");
        return Optional.empty();
    }

    /**
     * Whether the keys of one partition sort as its records' time goes: every variable but the time ones is the same
     * for all of a partition's files ({@code {stream}}, {@code {topic}}, {@code {partition}}), and the time ones are
     * zero-padded and go from coarse to fine with none skipped ({@code {date}/{hour}}, {@code {year}/{month}}), so a
     * later folder sorts after an earlier one and, in one folder, a later file after an earlier one. Not with a
     * {@code {field:...}}, {@code {timestamp}} (not padded), a unit before a coarser one ({@code {hour}/{date}}) or
     * one without its coarser units ({@code {hour}} alone starts again every day). One exception stays: where the
     * zone's clock goes back an hour, {@code {minute}} renders that hour's minutes again.
     */
    public boolean keysSortByTime() {
        int covered = 0; // 1 year, 2 month, 3 day, 4 hour, 5 minute: the units named so far, in order
        for (Part p : parts) {
            int next = switch (p.kind) {
                case LITERAL, STREAM, TOPIC, PARTITION -> covered;
                case YEAR -> covered == 0 ? 1 : -1;
                case MONTH -> covered == 1 ? 2 : -1;
                case DAY -> covered == 2 ? 3 : -1;
                case DATE -> covered == 0 ? 3 : -1;
                case HOUR -> covered == 3 ? 4 : -1;
                case MINUTE -> covered == 4 ? 5 : -1;
                case TIMESTAMP, FIELD -> -1;
            };
            if (next < 0) return false;
            covered = next;
        }
        return true;
    }

    /**
     * The window {from, to} (microseconds, {@code to} exclusive) of the folder a file whose first record has
     * {@code timestampMicros} lands in: its finest time variable's unit, in {@code zone}. Only for a template
     * without a {@link #windowProblem()}.
     */
    public long[] window(long timestampMicros, ZoneId zone) {
        java.util.EnumSet<Kind> kinds = java.util.EnumSet.noneOf(Kind.class);
        for (Part p : parts) kinds.add(p.kind);
        ZonedDateTime t = Instant.ofEpochSecond(Math.floorDiv(timestampMicros, 1_000_000L),
                Math.floorMod(timestampMicros, 1_000_000L) * 1_000L).atZone(zone);
        ZonedDateTime from;
        ZonedDateTime to;
        if (kinds.contains(Kind.MINUTE)) {
            from = t.truncatedTo(java.time.temporal.ChronoUnit.MINUTES);
            to = from.plusMinutes(1);
        } else if (kinds.contains(Kind.HOUR)) {
            from = t.truncatedTo(java.time.temporal.ChronoUnit.HOURS);
            to = from.plusHours(1);
        } else if (kinds.contains(Kind.DATE) || kinds.contains(Kind.DAY)) {
            from = t.toLocalDate().atStartOfDay(zone);
            to = from.toLocalDate().plusDays(1).atStartOfDay(zone);
        } else if (kinds.contains(Kind.MONTH)) {
            from = t.toLocalDate().withDayOfMonth(1).atStartOfDay(zone);
            to = from.toLocalDate().plusMonths(1).atStartOfDay(zone);
        } else {
            from = t.toLocalDate().withDayOfYear(1).atStartOfDay(zone);
            to = from.toLocalDate().plusYears(1).atStartOfDay(zone);
        }
        return new long[] {micros(from.toInstant()), micros(to.toInstant())};
    }

    private static long micros(Instant i) {
        return Math.addExact(Math.multiplyExact(i.getEpochSecond(), 1_000_000L), i.getNano() / 1_000L);
    }

    /** True when rendering reads record fields, so records of one file may differ in directory. */
    public boolean usesFields() {
        return usesFields;
    }

    /** True when rendering reads the timestamp. */
    public boolean usesTime() {
        return usesTime;
    }

    public String template() {
        return template;
    }

    private static StringBuilder pad(StringBuilder sb, int value, int width) {
        String digits = Integer.toString(value);
        for (int i = digits.length(); i < width; i++) sb.append('0');
        return sb.append(digits);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PathTemplate t && template.equals(t.template);
    }

    @Override
    public int hashCode() {
        return template.hashCode();
    }

    @Override
    public String toString() {
        return template;
    }
}
