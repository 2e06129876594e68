package dev.iggysink.testkit.iggy;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Little-endian cursor over a request payload. Running out of bytes is the server's decode EOF, answered with 3.
 */
final class WireReader {

    /** An identifier as sent: numeric ({@code name == null}) or by name. */
    record Ident(long numeric, String name) {
        boolean byName() {
            return name != null;
        }

        @Override
        public String toString() {
            return byName() ? name : Long.toString(numeric);
        }
    }

    private final byte[] buf;
    private int pos;
    private final int end;

    WireReader(byte[] buf) {
        this(buf, 0, buf.length);
    }

    WireReader(byte[] buf, int offset, int length) {
        this.buf = buf;
        this.pos = offset;
        this.end = offset + length;
    }

    int position() {
        return pos;
    }

    int remaining() {
        return end - pos;
    }

    private void need(int n) {
        if (n < 0 || end - pos < n) {
            throw new BrokerError(BrokerError.INVALID_COMMAND);
        }
    }

    int u8() {
        need(1);
        return buf[pos++] & 0xFF;
    }

    long u32() {
        need(4);
        long v = Integer.toUnsignedLong(leInt(buf, pos));
        pos += 4;
        return v;
    }

    long u64() {
        need(8);
        long v = leLong(buf, pos);
        pos += 8;
        return v;
    }

    byte[] bytes(long n) {
        if (n > Integer.MAX_VALUE) {
            throw new BrokerError(BrokerError.INVALID_COMMAND);
        }
        need((int) n);
        byte[] out = new byte[(int) n];
        System.arraycopy(buf, pos, out, 0, (int) n);
        pos += (int) n;
        return out;
    }

    String utf8(long n) {
        return decodeUtf8(bytes(n));
    }

    /** {@code [u8 len 1..255][bytes]}: an empty name is a validation failure (4). */
    String name() {
        int len = u8();
        if (len == 0) {
            throw new BrokerError(BrokerError.INVALID_FORMAT);
        }
        return utf8(len);
    }

    Ident identifier() {
        return identifier(BrokerError.INVALID_COMMAND, BrokerError.INVALID_FORMAT);
    }

    /**
     * {@code [u8 kind][u8 len][value]}. The send path reports every identifier problem as 6, the other commands
     * report an unknown kind as 3 and a bad length as 4, hence the two codes.
     */
    Ident identifier(int badKindCode, int badLengthCode) {
        int kind = u8();
        int len = u8();
        if (kind == 1) {
            if (len != 4) {
                throw new BrokerError(badLengthCode);
            }
            return new Ident(u32(), null);
        }
        if (kind == 2) {
            if (len == 0) {
                throw new BrokerError(badLengthCode);
            }
            return new Ident(-1, utf8(len));
        }
        throw new BrokerError(badKindCode);
    }

    static String decodeUtf8(byte[] bytes) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes))
                    .toString();
        } catch (CharacterCodingException e) {
            throw new BrokerError(BrokerError.INVALID_COMMAND);
        }
    }

    static int leInt(byte[] b, int i) {
        return (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
    }

    static long leLong(byte[] b, int i) {
        return Integer.toUnsignedLong(leInt(b, i)) | (long) leInt(b, i + 4) << 32;
    }

    static void putLeLong(byte[] b, int i, long v) {
        for (int k = 0; k < 8; k++) {
            b[i + k] = (byte) (v >>> (8 * k));
        }
    }
}
