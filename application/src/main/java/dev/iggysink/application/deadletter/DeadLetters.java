package dev.iggysink.application.deadletter;

import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The dead-letter object of one bad record: {@code [prefix/]<dlq>/<stream>/<topic>/<partition:05>-<offset:020>.json}
 * holding the error, where the record came from, its timestamps, message id, headers and payload (base64), so nothing
 * disappears silently and a redriven record is the record it was. The key
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
                         long originTimestampMicros, String messageId, List<RecordHeader> headers, String error,
                         byte[] payload, String redrivenTo) {
        /** The record as it was read from Iggy. */
        public SinkRecord record() {
            java.math.BigInteger id = new java.math.BigInteger(messageId);
            return new SinkRecord(new dev.iggysink.domain.message.PartitionRef(stream, topic, partitionId), offset,
                    timestampMicros, originTimestampMicros,
                    new dev.iggysink.domain.message.MessageId(id.shiftRight(64).longValue(), id.longValue()),
                    headers, payload);
        }
    }

    /**
     * Reads a dead letter written by {@link #content} (or a note of {@link #note}). One written before headers and the
     * origin timestamp were kept gives a record without headers whose origin timestamp is its timestamp.
     *
     * @throws IllegalArgumentException not such an object, with what is wrong
     */
    public static Letter parse(byte[] content) {
        Map<String, String> f = FlatJson.parse(new String(content, StandardCharsets.UTF_8));
        try {
            String stream = need(f, "stream");
            String topic = need(f, "topic");
            int partitionId = Integer.parseInt(need(f, "partition_id"));
            long offset = Long.parseLong(need(f, "offset"));
            long timestamp = Long.parseLong(need(f, "timestamp_micros"));
            String origin = f.get("origin_timestamp_micros");
            String messageId = need(f, "message_id");
            String headers = f.get("headers");
            return new Letter(stream, topic, partitionId, offset, timestamp,
                    origin == null ? timestamp : Long.parseLong(origin), messageId,
                    headers == null ? List.of() : headers(headers), f.getOrDefault("error", ""),
                    Base64.getDecoder().decode(need(f, "payload_base64")), f.get("redriven_to"));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("a number field does not hold a number: " + e.getMessage(), e);
        }
    }

    private static List<RecordHeader> headers(String json) {
        List<RecordHeader> out = new ArrayList<>();
        int n = 0;
        for (Map<String, String> h : FlatJson.objects(json)) {
            n++;
            try {
                out.add(new RecordHeader(kind(h, "key_kind"), bytes(h, "key"), kind(h, "value_kind"),
                        bytes(h, "value")));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("header " + n + ": " + e.getMessage(), e);
            }
        }
        return out;
    }

    private static HeaderKind kind(Map<String, String> header, String field) {
        String name = need(header, field);
        for (HeaderKind k : HeaderKind.values()) {
            if (kindName(k).equals(name)) return k;
        }
        throw new IllegalArgumentException("\"" + field + "\" is \"" + name + "\", not a header kind");
    }

    /** A header's key or value: its text as written, or its bytes from {@code <field>_base64}. */
    private static byte[] bytes(Map<String, String> header, String field) {
        String text = header.get(field);
        if (text != null) return text.getBytes(StandardCharsets.UTF_8);
        String base64 = header.get(field + "_base64");
        if (base64 == null) {
            throw new IllegalArgumentException("it has neither \"" + field + "\" nor \"" + field + "_base64\"");
        }
        return Base64.getDecoder().decode(base64);
    }

    private static String need(Map<String, String> fields, String name) {
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
        sb.append(",\"origin_timestamp_micros\":").append(record.originTimestampMicros());
        sb.append(",\"message_id\":\"").append(record.id()).append('"');
        sb.append(",\"headers\":[");
        for (int i = 0; i < record.headers().size(); i++) {
            RecordHeader h = record.headers().get(i);
            if (i > 0) sb.append(',');
            sb.append("{\"key_kind\":\"").append(kindName(h.keyKind())).append('"');
            headerBytes(sb, "key", h.keyKind(), h.key());
            sb.append(",\"value_kind\":\"").append(kindName(h.valueKind())).append('"');
            headerBytes(sb, "value", h.valueKind(), h.value());
            sb.append('}');
        }
        sb.append(']');
        sb.append(",\"error\":");
        quote(sb, error);
        sb.append(",\"payload_base64\":\"").append(Base64.getEncoder().encodeToString(record.payload()))
                .append("\"}\n");
        return sb.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String kindName(HeaderKind kind) {
        return kind.name().toLowerCase(Locale.ROOT);
    }

    /**
     * A string key or value that is valid UTF-8 is written as its text, to be read; anything else as base64, so that
     * every byte comes back as it was.
     */
    private static void headerBytes(StringBuilder sb, String field, HeaderKind kind, byte[] bytes) {
        if (kind == HeaderKind.STRING) {
            try {
                String text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
                sb.append(",\"").append(field).append("\":");
                quote(sb, text);
                return;
            } catch (CharacterCodingException e) {
                // not text: base64 below
            }
        }
        sb.append(",\"").append(field).append("_base64\":\"").append(Base64.getEncoder().encodeToString(bytes))
                .append('"');
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
