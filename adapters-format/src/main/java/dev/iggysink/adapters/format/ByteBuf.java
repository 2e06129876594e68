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

    /** Writes {@code v} in decimal, as {@link Long#toString(long)} prints it, without the String. */
    void writeLong(long v) {
        if (v == Long.MIN_VALUE) {
            writeAscii("-9223372036854775808");
            return;
        }
        ensure(20);
        if (v < 0) {
            bytes[length++] = '-';
            v = -v;
        }
        int n = 1;
        for (long t = v; t >= 10; t /= 10) n++;
        int end = length + n;
        for (int i = end - 1; i >= length; i--) {
            bytes[i] = (byte) ('0' + (int) (v % 10));
            v /= 10;
        }
        length = end;
    }

    byte[] toByteArray() {
        return Arrays.copyOf(bytes, length);
    }

    /** The backing array; bytes {@code [0, length())} are the content. Valid until the next write or release. */
    byte[] array() {
        return bytes;
    }

    /**
     * The content as an array of its own length (the backing array itself when it is exactly full, else a copy), and
     * the buffer lets go of its array: a sealed file's bytes then live once on the heap while it uploads, not as
     * the copy plus the (up to twice as large) growth array.
     */
    byte[] takeBytes() {
        byte[] out = length == bytes.length ? bytes : Arrays.copyOf(bytes, length);
        release();
        return out;
    }

    /** Empties the buffer and drops its array. */
    void release() {
        bytes = EMPTY;
        length = 0;
    }

    private static final byte[] EMPTY = new byte[0];

    /**
     * Makes room for {@code extra} more bytes and returns the backing array; the caller writes from {@link #length()}
     * and then calls {@link #setLength}. The array is only valid until the next write.
     */
    byte[] reserve(int extra) {
        ensure(extra);
        return bytes;
    }

    /** Commits bytes written directly into the array from {@link #reserve}. */
    void setLength(int newLength) {
        if (newLength < 0 || newLength > bytes.length) throw new IllegalArgumentException("bad length " + newLength);
        length = newLength;
    }

    private void ensure(int extra) {
        int needed = length + extra;
        if (needed < 0 || needed > MAX_CAPACITY) throw new OutOfMemoryError("file buffer above 2 GiB");
        if (needed > bytes.length) grow(needed);
    }

    /** Doubles (at least): an 8 MiB file from 64 KiB copies its bytes about once, not twice as with 1.5x. */
    private void grow(int needed) {
        long doubled = 2L * bytes.length;
        int grown = (int) Math.min(MAX_CAPACITY, Math.max(needed, doubled));
        bytes = Arrays.copyOf(bytes, grown);
    }

    private static final int MAX_CAPACITY = Integer.MAX_VALUE - 8;
}
