package dev.iggysink.bootstrap;

import io.netty.util.internal.PlatformDependent;
import java.util.Optional;

/**
 * Lets Netty (the Iggy connection, the admin server) allocate its direct buffers without zero-filling them and free
 * them when released, instead of through {@code ByteBuffer.allocateDirect}, which zero-fills each one and leaves it to
 * the collector. Each poll answer (up to a few MiB) and each socket read gets such a buffer, so both the
 * zero-filling and, on Java 25, the buffers left to the collector show in the sink's CPU and peak RSS (figures:
 * docs/adr/0008-netty-buffers-without-zero-fill.md).
 *
 * <p>Up to Java 23 Netty does it through {@code sun.misc.Unsafe} and needs {@code java.nio} opened to it (the jar's
 * manifest does that for {@code java -jar}, which the launcher uses) and its permission to use it: {@link #apply}
 * gives that before Netty's first use, unless the property is already set (an operator's
 * {@code -Dio.netty.tryReflectionSetAccessible=false} wins). From Java 24 on Netty leaves {@code Unsafe} alone (the
 * JVM warns about its memory methods) and calls libc's {@code malloc} and {@code free} through the FFM API instead,
 * which needs native access enabled for the jar's classes (the manifest's {@code Enable-Native-Access}, also applied
 * by {@code java -jar}).
 */
public final class NettyDefaults {
    static final String PROPERTY = "io.netty.tryReflectionSetAccessible";
    /** The first release on which Netty does not use {@code Unsafe} unless told to. */
    private static final int UNSAFE_OFF_BY_DEFAULT = 24;

    private NettyDefaults() {
    }

    /** Call first thing in {@code main}: Netty reads the property once, when its first class loads. */
    public static void apply() {
        if (System.getProperty(PROPERTY) == null) System.setProperty(PROPERTY, "true");
    }

    /** What to tell the operator when Netty falls back to zero-filled buffers; empty when it does not. */
    static Optional<String> fallbackNotice() {
        return notice(PlatformDependent.useDirectBufferNoCleaner(), PlatformDependent.hasUnsafe(),
                PlatformDependent.javaVersion(), nativeAccessEnabled());
    }

    /**
     * The notice for what Netty found: its own unzeroed buffers through {@code Unsafe} ({@code noCleaner}), whether
     * it may use {@code Unsafe} at all, the Java release, and whether native access is enabled for this jar.
     */
    static Optional<String> notice(boolean noCleaner, boolean unsafe, int javaVersion, boolean nativeAccess) {
        if (noCleaner) return Optional.empty();
        String cost = "Netty zero-fills its buffers and leaves them to the garbage collector (a few % more CPU per"
                + " record, tens of MiB more memory): ";
        if (javaVersion >= UNSAFE_OFF_BY_DEFAULT && !unsafe) {
            if (nativeAccess) return Optional.empty();
            return Optional.of(cost + "on Java " + javaVersion + " it needs native access, which is not enabled;"
                    + " run the jar with java -jar or bin/iggy-s3-sink (they enable it), or add"
                    + " --enable-native-access=ALL-UNNAMED");
        }
        return Optional.of(cost + "java.nio is not open to it; run the jar with java -jar or bin/iggy-s3-sink"
                + " (they open it), or add --add-opens=java.base/java.nio=ALL-UNNAMED -D" + PROPERTY + "=true");
    }

    /** {@code Module.isNativeAccessEnabled()} of this class's module (Java 22 and later); false before. */
    private static boolean nativeAccessEnabled() {
        try {
            Module module = NettyDefaults.class.getModule();
            return (boolean) Module.class.getMethod("isNativeAccessEnabled").invoke(module);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return false;
        }
    }
}
