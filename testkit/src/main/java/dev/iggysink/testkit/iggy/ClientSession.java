package dev.iggysink.testkit.iggy;

import java.util.LinkedHashSet;
import java.util.Set;

/** Server-side state of one TCP connection: authentication and group membership belong to the socket. */
final class ClientSession {

    final long clientId;
    final String address;
    /** Authenticated user id, or {@code null}. */
    Integer userId;
    final Set<ConsumerGroupEntity> memberships = new LinkedHashSet<>();

    ClientSession(String address) {
        this.address = address;
        this.clientId = Integer.toUnsignedLong(Xxh32.hash(address.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
    }

    /** Every command but ping and login needs a logged-in user. */
    void requireAuthenticated() {
        if (userId == null) {
            throw new BrokerError(BrokerError.UNAUTHENTICATED);
        }
    }
}
