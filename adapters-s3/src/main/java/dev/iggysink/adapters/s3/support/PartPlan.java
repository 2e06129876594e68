package dev.iggysink.adapters.s3.support;

import java.util.ArrayList;
import java.util.List;

/** How one object is cut into multipart parts: consecutive slices of the content, numbered from 1. */
public final class PartPlan {
    /** S3 accepts at most 10,000 parts per upload; above that the part size grows instead of failing. */
    static final int MAX_PARTS = 10_000;

    private PartPlan() {
    }

    /** One slice: S3 part number (1-based), offset into the content, length in bytes. */
    public record Part(int number, int offset, int length) {
    }

    /**
     * Parts of at most {@code partSize} bytes (the last one shorter), or larger parts when {@code partSize} would
     * need more than 10,000 of them. An empty content gives one empty part.
     */
    public static List<Part> of(int contentLength, long partSize) {
        if (partSize <= 0) {
            throw new IllegalArgumentException("partSize must be > 0");
        }
        long size = Math.max(partSize, ceilDiv(contentLength, MAX_PARTS));
        List<Part> parts = new ArrayList<>();
        int number = 1;
        long offset = 0;
        do {
            int length = (int) Math.min(size, contentLength - offset);
            parts.add(new Part(number++, (int) offset, length));
            offset += length;
        } while (offset < contentLength);
        return parts;
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }
}
