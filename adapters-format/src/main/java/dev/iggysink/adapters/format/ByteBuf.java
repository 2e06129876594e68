package dev.iggysink.adapters.format;

import java.util.Arrays;

/** A growable byte array: the open file's bytes, written in place without a stream per record. Not thread-safe. */
final class ByteBuf {
    private byte[] bytes;
    private int length;

    ByteBuf(int initialCapacity) {
        bytes = new byte[Math.max(16, initialCapacity)];
    }

    int length() {
        return length;
    }

    /** Drops everything after {@code newLength}: how a record that failed half-way is taken back. */
    void truncate(int newLength) {
        if (newLength < 0 || newLength > length) throw new IllegalArgumentException("bad length " + newLength);
        length = newLength;
    }

    void write(int b) {
        ensure(1);
        bytes[length++] = (byte) b;
    }

    void write(byte[] src) {
        write(src, 0, src.length);
    }

    void write(byte[] src, int offset, int count) {
        ensure(count);
        System.arraycopy(src, offset, bytes, length, count);
        length += count;
    }

    /** Writes a string known to be ASCII (digits, field names, base64). */
    void writeAscii(String s) {
        int n = s.length();
        ensure(n);
        for (int i = 0; i < n; i++) bytes[length++] = (byte) s.charAt(i);
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    private void ensure(int extra) {
        int needed = length + extra;
        if (needed < 0) throw new OutOfMemoryError("file buffer above 2 GiB");
        if (needed > bytes.length) {
            int grown = Math.max(needed, bytes.length + (bytes.length >> 1));
            bytes = Arrays.copyOf(bytes, grown < 0 ? Integer.MAX_VALUE - 8 : grown);
        }
    }
}
