package dev.iggysink.adapters.config;

import dev.iggysink.application.settings.Secret;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;

/** Reads the {@code [iggy]} (with {@code [iggy.tls]}) and {@code [admin]} tables. */
final class ConnectionReader {
    static final String DEFAULT_IGGY_ADDRESS = ConnectorKeys.IGGY_ADDRESS.string();
    static final String DEFAULT_ADMIN_ADDRESS = ConnectorKeys.ADMIN_ADDRESS.string();
    private static final Pattern HOST_PORT = Pattern.compile("^(\\[[0-9A-Fa-f:.]+]|[^:\\s\\[\\]]+):(\\d{1,5})$");

    private ConnectionReader() {
    }

    /** Host and port of {@code host:port} ({@code [::1]:8090} for IPv6), or empty when it is not one. */
    static Optional<HostPort> hostPort(String text) {
        Matcher m = HOST_PORT.matcher(text.strip());
        if (!m.matches()) {
            return Optional.empty();
        }
        int port = Integer.parseInt(m.group(2));
        if (port < 1 || port > 65535) {
            return Optional.empty();
        }
        String host = m.group(1);
        if (host.startsWith("[")) {
            host = host.substring(1, host.length() - 1);
        }
        return Optional.of(new HostPort(host, port));
    }

    record HostPort(String host, int port) {
    }

    /**
     * A connector file's Iggy connection: in a runtime config's connector directory the runtime's ({@code runtimeIggy},
     * empty when that had errors; the file's own {@code [iggy]} is ignored with a notice), else the file's
     * {@code [iggy]} with the environment's overrides.
     */
    static Optional<IggyConfig> connectorIggy(Table top, JsonNode root, boolean inDirectory,
                                              Optional<IggyConfig> runtimeIggy, Map<String, String> env,
                                              Map<String, String> origins) {
        if (inDirectory) {
            if (top.has("iggy")) {
                top.problems().notice("[iggy] in a connector file is ignored: the runtime config's [iggy] applies");
            }
            return runtimeIggy;
        }
        JsonNode iggyNode = EnvOverrides.applyToSection(root.get("iggy"), "iggy", List.of("tls"), env, origins);
        return iggy(new Table(iggyNode, "iggy", top.problems(), origins));
    }

    /**
     * The Iggy connection from an {@code [iggy]} table (environment overrides already applied); absent keys take the
     * runtime's defaults. An empty token or TLS value means "not set", as in the runtime's sample config.
     */
    static Optional<IggyConfig> iggy(Table iggy) {
        iggy.warnUnknown(ConnectorKeys.IGGY_SECTION.names());
        int before = iggy.problems().errorCount();
        String address = iggy.string("address", DEFAULT_IGGY_ADDRESS);
        Optional<HostPort> hostPort = hostPort(address);
        if (hostPort.isEmpty()) {
            iggy.error("address", "\"" + address + "\" is not host:port (e.g. " + DEFAULT_IGGY_ADDRESS + ")");
        }
        String username = iggy.string("username", ConnectorKeys.IGGY_USERNAME.string());
        Secret password = iggy.secret("password").orElse(Secret.of(ConnectorKeys.IGGY_PASSWORD.string()));
        Optional<Secret> token = iggy.secret("token").filter(s -> !s.reveal().isEmpty());
        Table tls = iggy.table("tls");
        tls.warnUnknown(ConnectorKeys.TLS.names());
        boolean tlsEnabled = tls.bool("enabled", ConnectorKeys.TLS_ENABLED.bool());
        Optional<String> caFile = tls.string("ca_file").filter(s -> !s.isBlank());
        Optional<String> domain = tls.string("domain").filter(s -> !s.isBlank());
        if (iggy.problems().errorCount() > before || hostPort.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new IggyConfig(hostPort.get().host(), hostPort.get().port(), username, password, token,
                tlsEnabled, caFile, domain));
    }

    /** The admin HTTP server: {@code address} host:port or {@code off}; optional bearer {@code token}. */
    static Optional<AdminConfig> admin(Table admin) {
        admin.warnUnknown(ConnectorKeys.ADMIN_SECTION.names());
        int before = admin.problems().errorCount();
        String address = admin.string("address", DEFAULT_ADMIN_ADDRESS);
        Optional<String> effective = Optional.of(address.strip());
        if (address.strip().equalsIgnoreCase("off")) {
            effective = Optional.empty();
        } else if (hostPort(address).isEmpty()) {
            admin.error("address", "\"" + address + "\" is not host:port or off (e.g. " + DEFAULT_ADMIN_ADDRESS + ")");
        }
        Optional<Secret> token = admin.secret("token");
        if (token.isPresent() && token.get().reveal().isBlank()) {
            // An empty token used to mean "no token", silently leaving the control endpoints unprotected.
            admin.error("token", "must not be empty (remove the key for no token)");
        }
        if (admin.problems().errorCount() > before) {
            return Optional.empty();
        }
        return Optional.of(new AdminConfig(effective, token));
    }
}
