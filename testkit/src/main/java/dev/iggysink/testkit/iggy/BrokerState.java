package dev.iggysink.testkit.iggy;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;

/**
 * The broker's catalogue and command dispatch; each command family lives in its own class ({@link Sessions},
 * {@link Stats}, {@link StreamCommands}, {@link GroupCommands}, {@link SendCommand}, {@link ConsumerCommands}).
 * Every command runs under this object's monitor: the broker serves tests, so one lock keeps the rebalancing rules
 * easy to reason about, and a poll is only an array copy anyway. The parts have no lock of their own.
 */
final class BrokerState {

    static final int PING = 1;
    static final int GET_STATS = 10;
    static final int GET_ME = 20;
    static final int LOGIN_USER = 38;
    static final int LOGOUT_USER = 39;
    static final int GET_PERSONAL_ACCESS_TOKENS = 41;
    static final int CREATE_PERSONAL_ACCESS_TOKEN = 42;
    static final int DELETE_PERSONAL_ACCESS_TOKEN = 43;
    static final int LOGIN_WITH_PERSONAL_ACCESS_TOKEN = 44;
    static final int POLL_MESSAGES = 100;
    static final int SEND_MESSAGES = 101;
    static final int GET_CONSUMER_OFFSET = 120;
    static final int STORE_CONSUMER_OFFSET = 121;
    static final int GET_STREAM = 200;
    static final int GET_STREAMS = 201;
    static final int CREATE_STREAM = 202;
    static final int DELETE_STREAM = 203;
    static final int GET_TOPIC = 300;
    static final int GET_TOPICS = 301;
    static final int CREATE_TOPIC = 302;
    static final int DELETE_TOPIC = 303;
    static final int GET_CONSUMER_GROUP = 600;
    static final int GET_CONSUMER_GROUPS = 601;
    static final int CREATE_CONSUMER_GROUP = 602;
    static final int DELETE_CONSUMER_GROUP = 603;
    static final int JOIN_CONSUMER_GROUP = 604;
    static final int LEAVE_CONSUMER_GROUP = 605;

    /** The response of a command that answers with its status alone (or "nothing found"). */
    static final byte[] EMPTY = new byte[0];

    private final Catalog catalog = new Catalog();
    private final Sessions sessions;
    private final Stats stats = new Stats();
    private final StreamCommands streams = new StreamCommands(catalog);
    private final GroupCommands groups = new GroupCommands(catalog);
    private final SendCommand sending = new SendCommand(catalog);
    private final ConsumerCommands consumers = new ConsumerCommands(catalog);
    private final long rebalancingTimeoutNanos;

    BrokerState(Map<String, String> extraUsers, Duration rebalancingTimeout) {
        this.sessions = new Sessions(extraUsers);
        this.rebalancingTimeoutNanos = rebalancingTimeout.toNanos();
    }

    synchronized void stampClock(java.time.InstantSource clock) {
        sending.stampClock(clock);
    }

    synchronized void connected(ClientSession client) {
        sessions.connected(client);
    }

    /** The server deletes the client of a closed socket, which leaves its groups with a full rebalance each. */
    synchronized void disconnected(ClientSession client) {
        sessions.disconnected(client);
    }

    synchronized void expireRevocations(long nowNanos) {
        catalog.expireRevocations(nowNanos, rebalancingTimeoutNanos);
    }

    synchronized long messageCount(String stream, String topic, int partition) {
        return catalog.messageCount(stream, topic, partition);
    }

    /** Runs one command; a {@link BrokerError} becomes a status-only response and the connection stays usable. */
    synchronized byte[] execute(ClientSession client, int code, byte[] payload) {
        stats.countRequest(payload.length);
        WireReader in = new WireReader(payload);
        byte[] out = switch (code) {
            case PING -> EMPTY;
            case GET_STATS -> {
                client.requireAuthenticated();
                yield stats.encode(catalog, sessions.connectedClients());
            }
            case GET_ME -> Sessions.me(client);
            case LOGIN_USER -> sessions.login(client, in);
            case LOGOUT_USER -> Sessions.logout(client);
            case GET_PERSONAL_ACCESS_TOKENS -> sessions.tokens(client);
            case CREATE_PERSONAL_ACCESS_TOKEN -> sessions.createToken(client, in);
            case DELETE_PERSONAL_ACCESS_TOKEN -> sessions.deleteToken(client, in);
            case LOGIN_WITH_PERSONAL_ACCESS_TOKEN -> sessions.loginWithToken(client, in);
            case POLL_MESSAGES -> consumers.poll(client, in);
            case SEND_MESSAGES -> sending.send(client, payload);
            case GET_CONSUMER_OFFSET -> consumers.getOffset(client, in);
            case STORE_CONSUMER_OFFSET -> consumers.storeOffset(client, in);
            case GET_STREAM -> streams.getStream(client, in);
            case GET_STREAMS -> streams.getStreams(client);
            case CREATE_STREAM -> streams.createStream(client, in);
            case DELETE_STREAM -> streams.deleteStream(client, in);
            case GET_TOPIC -> streams.getTopic(client, in);
            case GET_TOPICS -> streams.getTopics(client, in);
            case CREATE_TOPIC -> streams.createTopic(client, in);
            case DELETE_TOPIC -> streams.deleteTopic(client, in);
            case GET_CONSUMER_GROUP -> groups.getGroup(client, in);
            case GET_CONSUMER_GROUPS -> groups.getGroups(client, in);
            case CREATE_CONSUMER_GROUP -> groups.createGroup(client, in);
            case DELETE_CONSUMER_GROUP -> groups.deleteGroup(client, in);
            case JOIN_CONSUMER_GROUP -> groups.joinGroup(client, in);
            case LEAVE_CONSUMER_GROUP -> groups.leaveGroup(client, in);
            default -> throw new BrokerError(BrokerError.INVALID_COMMAND);
        };
        stats.countResponse(out.length);
        return out;
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
