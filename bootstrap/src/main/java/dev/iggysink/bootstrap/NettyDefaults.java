package dev.iggysink.bootstrap;

import io.netty.util.internal.PlatformDependent;
import java.util.Optional;

/**
 * Lets Netty (the Iggy connection, the admin server) allocate its direct buffers without zero-filling them and free
 * them when released, instead of through {@code ByteBuffer.allocateDirect}, which zero-fills each one and leaves it to
 * the collector. Each poll answer (up to a few MiB) and each socket read gets such a buffer; the zero-filling alone
 * was 2.4 % of the sink's CPU (docs/adr/0008-netty-buffers-without-zero-fill.md has the measurements).
 *
 * <p>Netty needs {@code java.nio} opened to it (the jar's manifest does that for {@code java -jar}, which the
 * launcher uses) and its permission to use it: {@link #apply} gives that before Netty's first use, unless the
 * property is already set (an operator's {@code -Dio.netty.tryReflectionSetAccessible=false} wins).
 */
public final class NettyDefaults {
    static final String PROPERTY = "io.netty.tryReflectionSetAccessible";

    private NettyDefaults() {
    }

    /** Call first thing in {@code main}: Netty reads the property once, when its first class loads. */
    public static void apply() {
        if (System.getProperty(PROPERTY) == null) System.setProperty(PROPERTY, "true");
    }

    /** What to tell the operator when Netty falls back to zero-filled buffers; empty when it does not. */
    static Optional<String> fallbackNotice() {
        if (PlatformDependent.useDirectBufferNoCleaner()) return Optional.empty();
        return Optional.of("Netty zero-fills its buffers and leaves them to the garbage collector (a few % more"
                + " CPU per record): java.nio is not open to it; run the jar with java -jar or bin/iggy-s3-sink"
                + " (they open it), or add --add-opens=java.base/java.nio=ALL-UNNAMED -D" + PROPERTY + "=true");
    }
}
