package dev.iggysink.testkit.iggy;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/** Growable little-endian response builder. */
final class WireWriter {

    private byte[] buf;
    private int size;

    WireWriter() {
        this(64);
    }

    WireWriter(int capacity) {
        buf = new byte[Math.max(capacity, 16)];
    }

    private void ensure(int extra) {
        if (size + extra > buf.length) {
            buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + extra));
        }
    }

    WireWriter u8(int v) {
        ensure(1);
        buf[size++] = (byte) v;
        return this;
    }

    WireWriter u32(long v) {
        ensure(4);
        for (int k = 0; k < 4; k++) {
            buf[size++] = (byte) (v >>> (8 * k));
        }
        return this;
    }

    WireWriter u64(long v) {
        ensure(8);
        WireReader.putLeLong(buf, size, v);
        size += 8;
        return this;
    }

    WireWriter f32(float v) {
        return u32(Float.floatToIntBits(v));
    }

    WireWriter bytes(byte[] b) {
        ensure(b.length);
        System.arraycopy(b, 0, buf, size, b.length);
        size += b.length;
        return this;
    }

    /** {@code [u8 len][utf8]}, the name encoding of every header record. */
    WireWriter shortString(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return u8(b.length).bytes(b);
    }

    /** {@code [u32 len][utf8]}, used by stats and client details. */
    WireWriter longString(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        return u32(b.length).bytes(b);
    }

    byte[] toByteArray() {
        return buf.length == size ? buf : Arrays.copyOf(buf, size);
    }
}
