package dev.iggysink.bootstrap.admin;

import dev.iggysink.application.settings.Secret;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;

/**
 * Who may call the control endpoints ({@code /flush}, {@code /pause}, {@code /resume}); the read-only endpoints are
 * open. With a token configured, a caller from anywhere must send {@code Authorization: Bearer <token>}. Without
 * one, only loopback callers are let in: an admin port bound to a routable address must not let the network pause
 * the sink.
 */
public final class AdminAccess {
    /** The outcome, with the HTTP status the server answers for a refusal. */
    public enum Decision {
        ALLOW(200), UNAUTHORIZED(401), FORBIDDEN(403);

        private final int httpStatus;

        Decision(int httpStatus) {
            this.httpStatus = httpStatus;
        }

        public int httpStatus() {
            return httpStatus;
        }
    }

    private static final String SCHEME = "bearer ";

    /** SHA-256 of the token, never the token: compared in constant time, and nothing here can print it. */
    private final Optional<byte[]> tokenDigest;

    private AdminAccess(Optional<byte[]> tokenDigest) {
        this.tokenDigest = tokenDigest;
    }

    public static AdminAccess of(Optional<Secret> token) {
        Objects.requireNonNull(token, "token");
        return new AdminAccess(token.map(t -> sha256(t.reveal())));
    }

    public boolean tokenRequired() {
        return tokenDigest.isPresent();
    }

    /**
     * Decides one control request.
     *
     * @param authorization the {@code Authorization} header, or null when absent
     * @param remote        the caller's address
     */
    public Decision decide(String authorization, InetAddress remote) {
        if (tokenDigest.isEmpty()) {
            return remote != null && remote.isLoopbackAddress() ? Decision.ALLOW : Decision.FORBIDDEN;
        }
        if (authorization == null) return Decision.UNAUTHORIZED;
        String header = authorization.strip();
        if (header.length() < SCHEME.length()
                || !header.substring(0, SCHEME.length()).toLowerCase(Locale.ROOT).equals(SCHEME)) {
            return Decision.UNAUTHORIZED;
        }
        String presented = header.substring(SCHEME.length()).strip();
        // Comparing digests keeps the time independent of both the content and the length of the token.
        return MessageDigest.isEqual(tokenDigest.get(), sha256(presented)) ? Decision.ALLOW : Decision.UNAUTHORIZED;
    }

    private static byte[] sha256(String text) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JDK has SHA-256", e);
        }
    }

    @Override
    public String toString() {
        return tokenRequired() ? "AdminAccess[bearer token required]" : "AdminAccess[loopback only]";
    }
}
