package dev.iggysink.testkit.iggy;

/**
 * XXH32, because zero-allocation-hashing only offers 64-bit variants and Iggy uses the 32-bit one for client ids,
 * named consumer ids and message-key partitioning.
 */
final class Xxh32 {

    private static final int P1 = 0x9E3779B1;
    private static final int P2 = 0x85EBCA77;
    private static final int P3 = 0xC2B2AE3D;
    private static final int P4 = 0x27D4EB2F;
    private static final int P5 = 0x165667B1;

    private Xxh32() {}

    static int hash(byte[] data) {
        return hash(data, 0, data.length, 0);
    }

    static int hash(byte[] data, int offset, int length, int seed) {
        int end = offset + length;
        int pos = offset;
        int h;
        if (length >= 16) {
            int v1 = seed + P1 + P2;
            int v2 = seed + P2;
            int v3 = seed;
            int v4 = seed - P1;
            int limit = end - 16;
            while (pos <= limit) {
                v1 = round(v1, lane(data, pos));
                v2 = round(v2, lane(data, pos + 4));
                v3 = round(v3, lane(data, pos + 8));
                v4 = round(v4, lane(data, pos + 12));
                pos += 16;
            }
            h = Integer.rotateLeft(v1, 1) + Integer.rotateLeft(v2, 7) + Integer.rotateLeft(v3, 12)
                    + Integer.rotateLeft(v4, 18);
        } else {
            h = seed + P5;
        }
        h += length;
        while (pos + 4 <= end) {
            h += lane(data, pos) * P3;
            h = Integer.rotateLeft(h, 17) * P4;
            pos += 4;
        }
        while (pos < end) {
            h += (data[pos] & 0xFF) * P5;
            h = Integer.rotateLeft(h, 11) * P1;
            pos++;
        }
        h ^= h >>> 15;
        h *= P2;
        h ^= h >>> 13;
        h *= P3;
        h ^= h >>> 16;
        return h;
    }

    private static int round(int acc, int lane) {
        return Integer.rotateLeft(acc + lane * P2, 13) * P1;
    }

    private static int lane(byte[] b, int i) {
        return (b[i] & 0xFF) | (b[i + 1] & 0xFF) << 8 | (b[i + 2] & 0xFF) << 16 | (b[i + 3] & 0xFF) << 24;
    }
}
