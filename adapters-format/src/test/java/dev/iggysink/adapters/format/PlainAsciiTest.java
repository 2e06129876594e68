package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.domain.Seeded;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The SWAR skip against the byte-by-byte rule it stands for. */
class PlainAsciiTest {

    private static boolean plain(byte b) {
        return b >= 0x20 && b != '"' && b != '\\'; // a byte is signed: non-ASCII is negative
    }

    @Test
    void skips_exactly_plain_bytes_and_stops_within_eight_of_the_first_other_byte() {
        Seeded.check(20_000, r -> {
            byte[] in = mostlyPlain(r);
            int from = r.nextInt(in.length + 1);
            int to = PlainAscii.skip(in, from);
            int firstOther = from;
            while (firstOther < in.length && plain(in[firstOther])) firstOther++;
            assertThat(to).as("skip(%d) over %d bytes", from, in.length).isBetween(from, firstOther);
            // It stops only where the next eight bytes hold the other byte, or fewer than eight remain.
            assertThat(to + 8 > in.length || firstOther < to + 8).as("stopped early at %d", to).isTrue();
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
                assertThat(to).as("byte 0x%02x at %d", other, at).isLessThanOrEqualTo(at).isGreaterThan(at - 8);
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
        assertThat(PlainAscii.skip(in, 3)).isEqualTo(59); // five remain: fewer than eight
    }

    private static byte[] mostlyPlain(Random r) {
        byte[] in = new byte[r.nextInt(80)];
        for (int i = 0; i < in.length; i++) {
            in[i] = r.nextInt(40) == 0 ? (byte) r.nextInt(256) : (byte) (0x20 + r.nextInt(0x5f));
        }
        return in;
    }
}
