package dev.iggysink.testkit.iggy;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Users and connected clients: login, logout, "me", and what a closed socket leaves behind. */
final class Sessions {

    private record User(int id, String password) {}

    private final Map<String, User> users = new LinkedHashMap<>();
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
