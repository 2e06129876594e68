package dev.iggysink.application.deadletter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A dead letter is the record it was: read back, it gives the same record, headers and origin timestamp included. */
class DeadLettersTest {
    private static final PartitionRef P1 = new PartitionRef("logs", "api", 1);
    /** 2026-12-05T10:15:00Z */
    private static final long MICROS = 1_796_465_700_000_000L;

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** One header of each shape: string text, a non-UTF-8 string key, raw bytes, numbers, an empty value. */
    private static final List<RecordHeader> HEADERS = List.of(
            RecordHeader.ofStrings("tenant", "acme \"eu\"\n\u00e9\ud83d\ude00"),
            new RecordHeader(HeaderKind.STRING, new byte[] {(byte) 0xC3, 0x28}, HeaderKind.STRING,
                    new byte[] {(byte) 0xFF, 0x00, 0x41}),
            new RecordHeader(HeaderKind.RAW, new byte[] {0, 1, 2, (byte) 0xFE}, HeaderKind.RAW, new byte[] {9, 8}),
            new RecordHeader(HeaderKind.STRING, utf8("n"), HeaderKind.INT32, new byte[] {1, 0, 0, 0}),
            new RecordHeader(HeaderKind.UINT64, new byte[] {7, 0, 0, 0, 0, 0, 0, 0}, HeaderKind.FLOAT64,
                    new byte[] {0, 0, 0, 0, 0, 0, (byte) 0xF0, 0x3F}),
            new RecordHeader(HeaderKind.STRING, utf8("empty"), HeaderKind.BOOL, new byte[0]));

    /** Its origin timestamp, set by the producer, is two seconds before Iggy's. */
    private static SinkRecord withHeaders() {
        return new SinkRecord(P1, 42, MICROS, MICROS - 2_000_000L, new MessageId(-1, -2), HEADERS,
                utf8("{\"n\":42}"));
    }

    @Test
    void a_dead_letter_keeps_the_records_headers_and_its_origin_timestamp() {
        SinkRecord r = withHeaders();

        DeadLetters.Letter letter = DeadLetters.parse(DeadLetters.content(r, "old schema refused it"));

        assertThat(letter.record().headers()).containsExactlyElementsOf(HEADERS);
        assertThat(letter.record().originTimestampMicros()).isEqualTo(MICROS - 2_000_000L);
        assertThat(letter.record()).isEqualTo(r);
    }

    @Test
    void the_note_of_a_redriven_dead_letter_keeps_them_too() {
        SinkRecord r = withHeaders();

        DeadLetters.Letter note = DeadLetters.parse(DeadLetters.note(r, "old schema refused it",
                "out/logs/api/00001-x.jsonl", Instant.EPOCH));

        assertThat(note.record().headers()).containsExactlyElementsOf(HEADERS);
        assertThat(note.record().originTimestampMicros()).isEqualTo(MICROS - 2_000_000L);
        assertThat(note.record()).isEqualTo(r);
        assertThat(note.redrivenTo()).isEqualTo("out/logs/api/00001-x.jsonl");
        assertThat(note.error()).isEqualTo("old schema refused it");
    }

    @Test
    void headers_stay_readable_json_with_text_where_it_is_text() {
        String json = new String(DeadLetters.content(withHeaders(), "e"), StandardCharsets.UTF_8);

        assertThat(json).contains("\"origin_timestamp_micros\":" + (MICROS - 2_000_000L))
                .contains("{\"key_kind\":\"string\",\"key\":\"tenant\",\"value_kind\":\"string\","
                        + "\"value\":\"acme \\\"eu\\\"\\n\u00e9\ud83d\ude00\"}")
                .contains("{\"key_kind\":\"string\",\"key\":\"n\",\"value_kind\":\"int32\","
                        + "\"value_base64\":\"AQAAAA==\"}")
                .contains("{\"key_kind\":\"string\",\"key_base64\":\"wyg=\",\"value_kind\":\"string\","
                        + "\"value_base64\":\"/wBB\"}");
    }

    /** A dead letter as versions without headers wrote it, byte for byte: no headers, Iggy's time as origin. */
    private static final String OLD_LETTER = "{\"stream\":\"logs\",\"topic\":\"api\",\"partition_id\":1,"
            + "\"offset\":3,\"timestamp_micros\":1796465700000003,\"message_id\":\"129127208515966861315\","
            + "\"error\":\"old schema refused it\",\"payload_base64\":\"eyJuIjozfQ==\"}\n";

    @Test
    void a_dead_letter_written_before_headers_were_kept_reads_back_as_it_did() {
        DeadLetters.Letter letter = DeadLetters.parse(utf8(OLD_LETTER));

        assertThat(letter.record()).isEqualTo(new SinkRecord(P1, 3, MICROS + 3, MICROS + 3, new MessageId(7, 3),
                List.of(), utf8("{\"n\":3}")));
        assertThat(letter.error()).isEqualTo("old schema refused it");
        assertThat(letter.redrivenTo()).isNull();
    }

    @Test
    void a_header_of_an_unknown_kind_or_without_its_value_is_named() {
        String bad = OLD_LETTER.replace("\"error\"", "\"headers\":[{\"key_kind\":\"string\",\"key\":\"k\","
                + "\"value_kind\":\"int256\",\"value_base64\":\"AA==\"}],\"error\"");
        assertThatThrownBy(() -> DeadLetters.parse(utf8(bad))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header 1").hasMessageContaining("int256");
        String noValue = OLD_LETTER.replace("\"error\"", "\"headers\":[{\"key_kind\":\"string\",\"key\":\"k\","
                + "\"value_kind\":\"raw\"}],\"error\"");
        assertThatThrownBy(() -> DeadLetters.parse(utf8(noValue))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("header 1").hasMessageContaining("value");
    }
}
