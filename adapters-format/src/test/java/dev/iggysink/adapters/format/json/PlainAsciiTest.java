package dev.iggysink.adapters.format.json;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.Seeded;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The SWAR skip against the byte-by-byte rule it stands for: it ends where that rule ends. */
class PlainAsciiTest {

    private static boolean plain(byte b) {
        return b >= 0x20 && b != '"' && b != '\\'; // a byte is signed: non-ASCII is negative
    }

    @Test
    void stops_exactly_at_the_first_other_byte_or_at_the_end() {
        Seeded.check(20_000, r -> {
            byte[] in = mostlyPlain(r);
            int from = r.nextInt(in.length + 1);
            int to = PlainAscii.skip(in, from);
            int firstOther = from;
            while (firstOther < in.length && plain(in[firstOther])) firstOther++;
            assertThat(to).as("skip(%d) over %d bytes", from, in.length).isEqualTo(firstOther);
        });
    }

    @Test
    void every_kind_of_other_byte_stops_it_at_every_position_of_a_word() {
        byte[] others = {'"', '\\', 0, 0x1f, '\n', (byte) 0x80, (byte) 0xc3, (byte) 0xff};
        for (byte other : others) {
            for (int at = 0; at < 40; at++) {
                byte[] in = new byte[48];
                java.util.Arrays.fill(in, (byte) 'a');
                in[at] = other;
                int to = PlainAscii.skip(in, 0);
                assertThat(to).as("byte 0x%02x at %d", other, at).isEqualTo(at);
                // Other bytes after the first, whose flags a borrow may spill into, change nothing.
                in[Math.min(at + 1, in.length - 1)] = other;
                assertThat(PlainAscii.skip(in, 0)).as("byte 0x%02x at %d and after it", other, at).isEqualTo(at);
            }
        }
    }

    @Test
    void every_byte_value_at_every_position_of_two_words_and_a_tail() {
        for (int value = 0; value < 256; value++) {
            for (int at = 0; at < 21; at++) {
                for (byte filler : new byte[] {'a', 0x20, 0x7f}) {
                    byte[] in = new byte[21];
                    java.util.Arrays.fill(in, filler);
                    in[at] = (byte) value;
                    int expected = plain((byte) value) ? in.length : at;
                    assertThat(PlainAscii.skip(in, 0)).as("byte 0x%02x at %d among 0x%02x", value, at, filler)
                            .isEqualTo(expected);
                }
            }
        }
    }

    @Test
    void the_bytes_next_to_the_other_ones_are_not_flagged_as_them() {
        // 0x20 (space), 0x21 and 0x23 (either side of the quote), 0x5b and 0x5d (either side of the backslash), 0x7f.
        byte[] in = new byte[64];
        byte[] near = {0x20, 0x21, 0x23, 0x5b, 0x5d, 0x7f};
        for (int i = 0; i < in.length; i++) in[i] = near[i % near.length];
        assertThat(PlainAscii.skip(in, 0)).isEqualTo(64);
        assertThat(PlainAscii.skip(in, 3)).isEqualTo(64);
        assertThat(PlainAscii.skip(in, 59)).isEqualTo(64); // five left: the tail goes byte by byte
    }

    private static byte[] mostlyPlain(Random r) {
        byte[] in = new byte[r.nextInt(80)];
        for (int i = 0; i < in.length; i++) {
            in[i] = r.nextInt(40) == 0 ? (byte) r.nextInt(256) : (byte) (0x20 + r.nextInt(0x5f));
        }
        return in;
    }
}
