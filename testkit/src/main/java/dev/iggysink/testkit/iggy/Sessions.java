package dev.iggysink.testkit.iggy;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Users and connected clients: login (with a password or a personal access token), logout, "me", the users' personal
 * access tokens, and what a closed socket leaves behind.
 */
final class Sessions {

    private record User(int id, String password) {}

    /** A personal access token of user {@code userId}. A token of this broker never expires. */
    private record Token(int userId, String name) {}

    /** The 0.8 server's bounds: names of 3 to 30 characters, tokens of at most 100, 100 tokens per user. */
    private static final int MIN_TOKEN_NAME = 3;
    private static final int MAX_TOKEN_NAME = 30;
    private static final int MAX_TOKEN = 100;
    private static final int MAX_TOKENS_PER_USER = 100;
    private static final char[] TOKEN_CHARS =
            "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".toCharArray();

    private final Map<String, User> users = new LinkedHashMap<>();
    /** By the token itself (the server keeps its hash; nothing here is persisted). */
    private final Map<String, Token> tokens = new LinkedHashMap<>();
    private final java.security.SecureRandom random = new java.security.SecureRandom();
    private final Set<ClientSession> clients = new LinkedHashSet<>();

    Sessions(Map<String, String> extraUsers) {
        users.put("iggy", new User(0, "iggy"));
        for (Map.Entry<String, String> e : extraUsers.entrySet()) {
            users.putIfAbsent(e.getKey(), new User(users.size(), e.getValue()));
        }
    }

    void connected(ClientSession client) {
        clients.add(client);
    }

    /** The server deletes the client of a closed socket, which leaves its groups with a full rebalance each. */
    void disconnected(ClientSession client) {
        for (ConsumerGroupEntity g : List.copyOf(client.memberships)) {
            g.leave(client);
        }
        client.memberships.clear();
        clients.remove(client);
    }

    int connectedClients() {
        return clients.size();
    }

    byte[] login(ClientSession client, WireReader in) {
        int userLen = in.u8();
        String username = in.utf8(userLen);
        int passLen = in.u8();
        String password = in.utf8(passLen);
        in.utf8(in.u32());
        in.utf8(in.u32());
        if (userLen == 0) {
            throw new BrokerError(BrokerError.INVALID_FORMAT);
        }
        if (userLen < 3 || userLen > 50) {
            throw new BrokerError(BrokerError.INVALID_USERNAME);
        }
        if (passLen < 3 || passLen > 100) {
            throw new BrokerError(BrokerError.INVALID_PASSWORD);
        }
        User user = users.get(username);
        if (user == null || !user.password().equals(password)) {
            throw new BrokerError(BrokerError.INVALID_CREDENTIALS);
        }
        client.userId = user.id();
        return new WireWriter(4).u32(user.id()).toByteArray();
    }

    /** Logs in as the token's user; a token nobody has is "resource not found" (20), as on the 0.8 server. */
    byte[] loginWithToken(ClientSession client, WireReader in) {
        int len = in.u8();
        String token = in.utf8(len);
        if (len == 0 || len > MAX_TOKEN) {
            throw new BrokerError(BrokerError.INVALID_PAT);
        }
        Token t = tokens.get(token);
        if (t == null) {
            throw new BrokerError(BrokerError.RESOURCE_NOT_FOUND);
        }
        client.userId = t.userId();
        return new WireWriter(4).u32(t.userId()).toByteArray();
    }

    /** {@code [u8 len][name][u64 expiry]}; answers {@code [u8 len][token]}, which is never shown again. */
    byte[] createToken(ClientSession client, WireReader in) {
        client.requireAuthenticated();
        int len = in.u8();
        String name = in.utf8(len);
        in.u64(); // the expiry: ignored, tokens here never expire
        if (len < MIN_TOKEN_NAME || len > MAX_TOKEN_NAME) {
            throw new BrokerError(BrokerError.INVALID_PAT_NAME);
        }
        int userId = client.userId;
        long owned = tokens.values().stream().filter(t -> t.userId() == userId).count();
        if (tokens.values().stream().anyMatch(t -> t.userId() == userId && t.name().equals(name))) {
            throw new BrokerError(BrokerError.PAT_ALREADY_EXISTS);
        }
        if (owned >= MAX_TOKENS_PER_USER) {
            throw new BrokerError(BrokerError.PAT_LIMIT_REACHED);
        }
        char[] chars = new char[50];
        for (int i = 0; i < chars.length; i++) {
            chars[i] = TOKEN_CHARS[random.nextInt(TOKEN_CHARS.length)];
        }
        String token = new String(chars);
        tokens.put(token, new Token(userId, name));
        return new WireWriter(1 + token.length()).shortString(token).toByteArray();
    }

    /** The logged-in user's tokens: {@code [u8 len][name][u64 expiry time, 0: never]} each. */
    byte[] tokens(ClientSession client) {
        client.requireAuthenticated();
        WireWriter w = new WireWriter();
        for (Token t : tokens.values()) {
            if (t.userId() == client.userId) {
                w.shortString(t.name()).u64(0);
            }
        }
        return w.toByteArray();
    }

    /** {@code [u8 len][name]}; a name the user has no token of is "resource not found" (20). */
    byte[] deleteToken(ClientSession client, WireReader in) {
        client.requireAuthenticated();
        String name = in.utf8(in.u8());
        int userId = client.userId;
        boolean removed = tokens.values().removeIf(t -> t.userId() == userId && t.name().equals(name));
        if (!removed) {
            throw new BrokerError(BrokerError.RESOURCE_NOT_FOUND);
        }
        return BrokerState.EMPTY;
    }

    static byte[] logout(ClientSession client) {
        client.requireAuthenticated();
        client.userId = null;
        return BrokerState.EMPTY;
    }

    static byte[] me(ClientSession client) {
        client.requireAuthenticated();
        WireWriter w = new WireWriter()
                .u32(client.clientId)
                .u32(client.userId == null ? 0xFFFF_FFFFL : client.userId)
                .u8(1)
                .longString(client.address)
                .u32(client.memberships.size());
        for (ConsumerGroupEntity g : client.memberships) {
            w.u32(g.topic.stream.id).u32(g.topic.id).u32(g.id);
        }
        return w.toByteArray();
    }
}
