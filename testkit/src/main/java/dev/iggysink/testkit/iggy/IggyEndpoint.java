package dev.iggysink.testkit.iggy;

import java.util.Optional;

/**
 * Where a test's Iggy lives: the server named by {@code IGGY_TCP_ADDRESS} ({@code host:port}) when that variable is
 * set, otherwise a fresh {@link EmbeddedIggyServer}. This is how one suite runs unchanged against both.
 */
public final class IggyEndpoint implements AutoCloseable {

    public static final String ENV_VARIABLE = "IGGY_TCP_ADDRESS";

    private final String host;
    private final int port;
    private final EmbeddedIggyServer server;

    private IggyEndpoint(String host, int port, EmbeddedIggyServer server) {
        this.host = host;
        this.port = port;
        this.server = server;
    }

    public static IggyEndpoint fromEnvOrEmbedded() {
        String address = System.getenv(ENV_VARIABLE);
        if (address == null || address.isBlank()) return startEmbedded();
        return external(address.trim());
    }

    /** A fresh {@link EmbeddedIggyServer} whatever {@code IGGY_TCP_ADDRESS} says: for tests that steer it. */
    public static IggyEndpoint startEmbedded() {
        EmbeddedIggyServer server = EmbeddedIggyServer.start();
        return new IggyEndpoint(server.host(), server.port(), server);
    }

    /** An endpoint for an already running server, {@code host:port}. */
    public static IggyEndpoint external(String address) {
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("expected host:port, got '" + address + "'");
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected host:port, got '" + address + "'", e);
        }
        return new IggyEndpoint(address.substring(0, colon), port, null);
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String address() {
        return host + ":" + port;
    }

    public boolean embedded() {
        return server != null;
    }

    public Optional<EmbeddedIggyServer> server() {
        return Optional.ofNullable(server);
    }

    /** Stops the embedded server; an external one is left alone. */
    @Override
    public void close() {
        if (server != null) {
            server.close();
        }
    }
}
