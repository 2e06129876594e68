package dev.iggysink.application.service;

import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.SinkRecord;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What every object says about the records it holds, in its user metadata ({@code x-amz-meta-iggy-*}): its offset
 * range, how many records it holds (fewer than the range when records of it were dead-lettered), and the identity of
 * its first and last record (offset, Iggy message id, server timestamp). A key only names offsets; the identity
 * tells whether an object found under that key holds <em>these</em> records, not those of an earlier topic of the
 * same name (deleted and created again, or a server whose data was wiped while the bucket was kept).
 */
final class ObjectStamps {
    static final String OFFSETS = "iggy-offsets";
    static final String RECORDS = "iggy-records";
    static final String FIRST = "iggy-first";
    static final String LAST = "iggy-last";

    private ObjectStamps() {
    }

    /** One record's identity as stored: {@code <offset>/<message id>/<timestamp micros>}. */
    static String stamp(SinkRecord record) {
        return stamp(record.offset(), record.id(), record.timestampMicros());
    }

    static String stamp(long offset, MessageId id, long timestampMicros) {
        return offset + "/" + id + "/" + timestampMicros;
    }

    static Map<String, String> of(long first, long last, long records, String firstStamp, String lastStamp) {
        return Map.of(OFFSETS, first + "-" + last, RECORDS, Long.toString(records), FIRST, firstStamp, LAST,
                lastStamp);
    }

    /** A one-record object (a dead letter). */
    static Map<String, String> of(SinkRecord record) {
        String s = stamp(record);
        return of(record.offset(), record.offset(), 1, s, s);
    }

    /** Whether {@code metadata} carries identities at all (objects written before they existed do not). */
    static boolean stamped(Map<String, String> metadata) {
        return metadata.containsKey(FIRST) && metadata.containsKey(LAST);
    }

    static OptionalLong records(Map<String, String> metadata) {
        return parse(metadata.get(RECORDS));
    }

    /** The {@code first-last} range the metadata states, as {first, last}. */
    static Optional<long[]> offsets(Map<String, String> metadata) {
        String v = metadata.get(OFFSETS);
        if (v == null) return Optional.empty();
        int dash = v.indexOf('-');
        if (dash <= 0) return Optional.empty();
        OptionalLong first = parse(v.substring(0, dash));
        OptionalLong last = parse(v.substring(dash + 1));
        if (first.isEmpty() || last.isEmpty()) return Optional.empty();
        return Optional.of(new long[] {first.getAsLong(), last.getAsLong()});
    }

    /** The offset of a stored stamp. */
    static OptionalLong offsetOf(String stamp) {
        if (stamp == null) return OptionalLong.empty();
        int slash = stamp.indexOf('/');
        return parse(slash < 0 ? stamp : stamp.substring(0, slash));
    }

    private static OptionalLong parse(String s) {
        if (s == null) return OptionalLong.empty();
        try {
            return OptionalLong.of(Long.parseLong(s.trim()));
        } catch (NumberFormatException e) {
            return OptionalLong.empty();
        }
    }
}
