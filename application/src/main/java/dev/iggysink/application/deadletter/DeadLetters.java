package dev.iggysink.application.deadletter;

import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The dead-letter object of one bad record: {@code [prefix/]<dlq>/<stream>/<topic>/<partition:05>-<offset:020>.json}
 * holding the error, where the record came from and its payload in base64, so nothing disappears silently. The key
 * depends on the offset alone, so a replay rewrites the same object. Shared by the object sink and the table sink
 * (whose dead letters lie below the warehouse, with no prefix), so both write and read the same layout.
 */
public final class DeadLetters {
    private DeadLetters() {
    }

    private static final java.util.regex.Pattern NAME =
            java.util.regex.Pattern.compile("(\\d{5,9})-(\\d{20})\\.json");

    public static String key(String prefix, String dlqPrefix, SinkRecord record) {
        return topicPrefix(prefix, dlqPrefix, record.partition().stream(), record.partition().topic())
                + String.format("%05d-%020d.json", record.partition().partitionId(), record.offset());
    }

    /** {@code [prefix/]<dlq>/<stream>/<topic>/}: where one topic's dead letters are. */
    public static String topicPrefix(String prefix, String dlqPrefix, String stream, String topic) {
        StringBuilder sb = new StringBuilder();
        if (!prefix.isEmpty()) sb.append(prefix).append('/');
        if (!dlqPrefix.isEmpty()) sb.append(dlqPrefix).append('/');
        sb.append(dev.iggysink.domain.naming.KeySanitizer.sanitize(stream)).append('/')
                .append(dev.iggysink.domain.naming.KeySanitizer.sanitize(topic)).append('/');
        return sb.toString();
    }

    /** The offset of a dead letter of {@code partition}, from its name below the topic prefix. */
    public static java.util.OptionalLong offset(String name, int partition) {
        java.util.regex.Matcher m = NAME.matcher(name);
        if (!m.matches() || Integer.parseInt(m.group(1)) != partition) return java.util.OptionalLong.empty();
        return java.util.OptionalLong.of(Long.parseLong(m.group(2)));
    }

    /** What a dead letter (or the note of a redriven one) holds, read back from its content. */
    public record Letter(String stream, String topic, int partitionId, long offset, long timestampMicros,
                         String messageId, String error, byte[] payload, String redrivenTo) {
        /** The record as it was read from Iggy; headers and the origin timestamp are not kept in a dead letter. */
        public SinkRecord record() {
            java.math.BigInteger id = new java.math.BigInteger(messageId);
            return new SinkRecord(new dev.iggysink.domain.message.PartitionRef(stream, topic, partitionId), offset,
                    timestampMicros, timestampMicros,
                    new dev.iggysink.domain.message.MessageId(id.shiftRight(64).longValue(), id.longValue()),
                    java.util.List.of(), payload);
        }
    }

    /**
     * Reads a dead letter written by {@link #content} (or a note of {@link #note}).
     *
     * @throws IllegalArgumentException not such an object, with what is wrong
     */
    public static Letter parse(byte[] content) {
        java.util.Map<String, String> f = FlatJson.parse(new String(content, StandardCharsets.UTF_8));
        try {
            return new Letter(need(f, "stream"), need(f, "topic"), Integer.parseInt(need(f, "partition_id")),
                    Long.parseLong(need(f, "offset")), Long.parseLong(need(f, "timestamp_micros")),
                    need(f, "message_id"), f.getOrDefault("error", ""),
                    Base64.getDecoder().decode(need(f, "payload_base64")), f.get("redriven_to"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a number field does not hold a number: " + e.getMessage(), e);
        }
    }

    private static String need(java.util.Map<String, String> fields, String name) {
        String v = fields.get(name);
        if (v == null) throw new IllegalArgumentException("it has no field \"" + name + "\"");
        return v;
    }

    /** The note left for a redriven dead letter: its content plus where its record went and when. */
    public static byte[] note(SinkRecord record, String error, String redrivenTo, java.time.Instant at) {
        String letter = new String(content(record, error), StandardCharsets.UTF_8);
        StringBuilder sb = new StringBuilder(letter.length() + 128);
        sb.append(letter, 0, letter.lastIndexOf('}'));
        sb.append(",\"redriven_to\":");
        quote(sb, redrivenTo);
        sb.append(",\"redriven_at\":\"").append(at).append("\"}\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Where the note of the dead letter {@code letterKey} goes: the same name below {@code <dlq>/redriven/}, out of
     * every topic's dead letters, so that {@code audit} no longer counts it dead-lettered.
     */
    public static String redrivenKey(String prefix, String dlqPrefix, String letterKey) {
        StringBuilder base = new StringBuilder();
        if (!prefix.isEmpty()) base.append(prefix).append('/');
        if (!dlqPrefix.isEmpty()) base.append(dlqPrefix).append('/');
        if (!letterKey.startsWith(base.toString())) {
            throw new IllegalArgumentException(letterKey + " is not below " + base);
        }
        return base + "redriven/" + letterKey.substring(base.length());
    }

    public static byte[] content(SinkRecord record, String error) {
        StringBuilder sb = new StringBuilder(128 + record.payload().length * 4 / 3);
        sb.append("{\"stream\":");
        quote(sb, record.partition().stream());
        sb.append(",\"topic\":");
        quote(sb, record.partition().topic());
        sb.append(",\"partition_id\":").append(record.partition().partitionId());
        sb.append(",\"offset\":").append(record.offset());
        sb.append(",\"timestamp_micros\":").append(record.timestampMicros());
        sb.append(",\"message_id\":\"").append(record.id()).append('"');
        sb.append(",\"error\":");
        quote(sb, error);
        sb.append(",\"payload_base64\":\"").append(Base64.getEncoder().encodeToString(record.payload()))
                .append("\"}\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static void quote(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> sb.append("\\\"");
                case '\\' -> sb.append("\\\\");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
                }
            }
        }
        sb.append('"');
    }
}
