package dev.iggysink.adapters.iggy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.util.Random;

/** What the request tests compare: a buffer's bytes, and names of the kinds Iggy takes. */
final class RequestBytes {
    private static final String NAME_CHARS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.";

    private RequestBytes() {
    }

    /** The readable bytes of {@code b}, which is released. */
    static byte[] bytes(ByteBuf b) {
        try {
            return ByteBufUtil.getBytes(b);
        } finally {
            b.release();
        }
    }

    /** A name of 1 to 20 characters, now and then up to 255. */
    static String name(Random random) {
        StringBuilder sb = new StringBuilder();
        int length = 1 + random.nextInt(random.nextInt(10) == 0 ? 255 : 20);
        for (int i = 0; i < length; i++) sb.append(NAME_CHARS.charAt(random.nextInt(NAME_CHARS.length())));
        return sb.toString();
    }
}
