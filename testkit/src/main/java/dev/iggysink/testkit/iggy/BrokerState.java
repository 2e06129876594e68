package dev.iggysink.testkit.iggy;

import dev.iggysink.testkit.iggy.ConsumerGroupEntity.Member;
import dev.iggysink.testkit.iggy.WireReader.Ident;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import net.openhft.hashing.LongHashFunction;

/**
 * The broker's catalogue and command semantics. Every command runs under this object's monitor: the broker serves
 * tests, so one lock keeps the rebalancing rules easy to reason about, and a poll is only an array copy anyway.
 */
final class BrokerState {

    static final int PING = 1;
    static final int GET_STATS = 10;
    static final int GET_ME = 20;
    static final int LOGIN_USER = 38;
    static final int LOGOUT_USER = 39;
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

    static final int MESSAGE_HEADER_SIZE = 64;
    private static final byte[] EMPTY = new byte[0];
    private static final long U64_MAX = -1L;
    private static final long SEGMENT_SIZE_BYTES = 1L << 30;
    private static final int MAX_PARTITIONS_PER_REQUEST = 1000;
    private static final long MAX_PAYLOAD_BYTES = 64L * 1000 * 1000;
    private static final long MAX_USER_HEADERS_BYTES = 100L * 1000;
    private static final LongHashFunction XXH3 = LongHashFunction.xx3();

    private record User(int id, String password) {}

    private final Map<String, User> users = new LinkedHashMap<>();
    private final Slab<StreamEntity> streams = new Slab<>();
    private final Map<String, StreamEntity> streamsByName = new HashMap<>();
    private final Set<ClientSession> clients = new LinkedHashSet<>();
    private final long rebalancingTimeoutNanos;
    private final long startedAtMicros;
    private long lastTimestampMicros;
    private long readBytes;
    private long writtenBytes;

    BrokerState(Map<String, String> extraUsers, Duration rebalancingTimeout) {
        users.put("iggy", new User(0, "iggy"));
        for (Map.Entry<String, String> e : extraUsers.entrySet()) {
            users.putIfAbsent(e.getKey(), new User(users.size(), e.getValue()));
        }
        this.rebalancingTimeoutNanos = rebalancingTimeout.toNanos();
        this.startedAtMicros = nowMicros();
    }

    synchronized void connected(ClientSession client) {
        clients.add(client);
    }

    /** The server deletes the client of a closed socket, which leaves its groups with a full rebalance each. */
    synchronized void disconnected(ClientSession client) {
        for (ConsumerGroupEntity g : List.copyOf(client.memberships)) {
            g.leave(client);
        }
        client.memberships.clear();
        clients.remove(client);
    }

    synchronized void expireRevocations(long nowNanos) {
        for (StreamEntity s : streams.values()) {
            for (TopicEntity t : s.topics.values()) {
                for (ConsumerGroupEntity g : t.groups.values()) {
                    g.expireRevocations(nowNanos, rebalancingTimeoutNanos);
                }
            }
        }
    }

    synchronized long messageCount(String stream, String topic, int partition) {
        StreamEntity s = streamsByName.get(stream);
        TopicEntity t = s == null ? null : s.topicsByName.get(topic);
        PartitionLog p = t == null ? null : t.partition(partition);
        return p == null ? 0 : p.messages.size();
    }

    /** Runs one command; a {@link BrokerError} becomes a status-only response and the connection stays usable. */
    synchronized byte[] execute(ClientSession client, int code, byte[] payload) {
        readBytes += payload.length + 8L;
        WireReader in = new WireReader(payload);
        byte[] out = switch (code) {
            case PING -> EMPTY;
            case GET_STATS -> authenticated(client, stats());
            case GET_ME -> authenticated(client, me(client));
            case LOGIN_USER -> login(client, in);
            case LOGOUT_USER -> {
                requireAuth(client);
                client.userId = null;
                yield EMPTY;
            }
            case POLL_MESSAGES -> poll(client, in);
            case SEND_MESSAGES -> send(client, payload);
            case GET_CONSUMER_OFFSET -> getOffset(client, in);
            case STORE_CONSUMER_OFFSET -> storeOffset(client, in);
            case GET_STREAM -> getStream(client, in);
            case GET_STREAMS -> getStreams(client);
            case CREATE_STREAM -> createStream(client, in);
            case DELETE_STREAM -> deleteStream(client, in);
            case GET_TOPIC -> getTopic(client, in);
            case GET_TOPICS -> getTopics(client, in);
            case CREATE_TOPIC -> createTopic(client, in);
            case DELETE_TOPIC -> deleteTopic(client, in);
            case GET_CONSUMER_GROUP -> getGroup(client, in);
            case GET_CONSUMER_GROUPS -> getGroups(client, in);
            case CREATE_CONSUMER_GROUP -> createGroup(client, in);
            case DELETE_CONSUMER_GROUP -> deleteGroup(client, in);
            case JOIN_CONSUMER_GROUP -> joinGroup(client, in);
            case LEAVE_CONSUMER_GROUP -> leaveGroup(client, in);
            default -> throw new BrokerError(BrokerError.INVALID_COMMAND);
        };
        writtenBytes += out.length + 8L;
        return out;
    }

    // ---- users and system -------------------------------------------------------------------------------------

    private static void requireAuth(ClientSession client) {
        if (client.userId == null) {
            throw new BrokerError(BrokerError.UNAUTHENTICATED);
        }
    }

    private static byte[] authenticated(ClientSession client, byte[] response) {
        requireAuth(client);
        return response;
    }

    private byte[] login(ClientSession client, WireReader in) {
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

    private byte[] me(ClientSession client) {
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

    private byte[] stats() {
        int topics = 0;
        int partitions = 0;
        int groups = 0;
        long messages = 0;
        long bytes = 0;
        for (StreamEntity s : streams.values()) {
            for (TopicEntity t : s.topics.values()) {
                topics++;
                partitions += t.partitions.size();
                groups += t.groups.size();
                messages += t.messagesCount();
                bytes += t.sizeBytes();
            }
        }
        Runtime rt = Runtime.getRuntime();
        long now = nowMicros();
        WireWriter w = new WireWriter(256)
                .u32(ProcessHandle.current().pid())
                .f32(0f)
                .f32(0f)
                .u64(rt.totalMemory() - rt.freeMemory())
                .u64(rt.maxMemory())
                .u64(rt.maxMemory() - (rt.totalMemory() - rt.freeMemory()))
                .u64(now - startedAtMicros)
                .u64(startedAtMicros)
                .u64(readBytes)
                .u64(writtenBytes)
                .u64(bytes)
                .u32(streams.size())
                .u32(topics)
                .u32(partitions)
                .u32(partitions) // one in-memory segment per partition
                .u64(messages)
                .u32(clients.size())
                .u32(groups)
                .longString("localhost")
                .longString(System.getProperty("os.name", ""))
                .longString(System.getProperty("os.version", ""))
                .longString(System.getProperty("os.version", ""))
                .longString("0.8.0")
                .u32(8000) // major * 1_000_000 + minor * 1_000 + patch
                .u32(0)
                .u32(Thread.activeCount())
                .u64(0)
                .u64(0);
        return w.toByteArray();
    }

    // ---- streams and topics -----------------------------------------------------------------------------------

    private StreamEntity findStream(Ident id) {
        return id.byName() ? streamsByName.get(id.name()) : streams.get(id.numeric());
    }

    private StreamEntity stream(Ident id) {
        StreamEntity s = findStream(id);
        if (s == null) {
            throw new BrokerError(BrokerError.STREAM_ID_NOT_FOUND);
        }
        return s;
    }

    private static TopicEntity findTopic(StreamEntity s, Ident id) {
        if (s == null) {
            return null;
        }
        return id.byName() ? s.topicsByName.get(id.name()) : s.topics.get(id.numeric());
    }

    private static TopicEntity topic(StreamEntity s, Ident id) {
        TopicEntity t = findTopic(s, id);
        if (t == null) {
            throw new BrokerError(BrokerError.TOPIC_ID_NOT_FOUND);
        }
        return t;
    }

    private static ConsumerGroupEntity findGroup(TopicEntity t, Ident id) {
        if (t == null) {
            return null;
        }
        return id.byName() ? t.groupsByName.get(id.name()) : t.groups.get(id.numeric());
    }

    private static ConsumerGroupEntity group(TopicEntity t, Ident id) {
        ConsumerGroupEntity g = findGroup(t, id);
        if (g == null) {
            throw new BrokerError(BrokerError.CONSUMER_GROUP_NOT_FOUND);
        }
        return g;
    }

    private byte[] createStream(ClientSession client, WireReader in) {
        String name = in.name();
        requireAuth(client);
        if (streamsByName.containsKey(name)) {
            throw new BrokerError(BrokerError.STREAM_NAME_ALREADY_EXISTS);
        }
        StreamEntity s = new StreamEntity(streams.nextKey(), name, nowMicros());
        streams.insert(s);
        streamsByName.put(name, s);
        return streamHeader(new WireWriter(), s).toByteArray();
    }

    private byte[] getStream(ClientSession client, WireReader in) {
        Ident id = in.identifier();
        requireAuth(client);
        StreamEntity s = findStream(id);
        if (s == null) {
            return EMPTY;
        }
        WireWriter w = streamHeader(new WireWriter(), s);
        for (TopicEntity t : s.topics.values()) {
            topicHeader(w, t);
        }
        return w.toByteArray();
    }

    private byte[] getStreams(ClientSession client) {
        requireAuth(client);
        WireWriter w = new WireWriter();
        for (StreamEntity s : streams.values()) {
            streamHeader(w, s);
        }
        return w.toByteArray();
    }

    private byte[] deleteStream(ClientSession client, WireReader in) {
        Ident id = in.identifier();
        requireAuth(client);
        StreamEntity s = stream(id);
        for (TopicEntity t : s.topics.values()) {
            dropGroups(t);
        }
        streams.remove(s.id);
        streamsByName.remove(s.name);
        return EMPTY;
    }

    private byte[] createTopic(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        long partitionsCount = in.u32();
        int compression = in.u8();
        long expiry = in.u64();
        long maxSize = in.u64();
        int replication = in.u8();
        String name = in.name();
        if (compression != 1 && compression != 2) {
            throw new BrokerError(BrokerError.INVALID_COMMAND);
        }
        requireAuth(client);
        if (partitionsCount > MAX_PARTITIONS_PER_REQUEST) {
            throw new BrokerError(BrokerError.TOO_MANY_PARTITIONS);
        }
        StreamEntity s = stream(streamId);
        if (s.topicsByName.containsKey(name)) {
            throw new BrokerError(BrokerError.TOPIC_NAME_ALREADY_EXISTS);
        }
        if (maxSize != 0 && maxSize != U64_MAX && Long.compareUnsigned(maxSize, SEGMENT_SIZE_BYTES) < 0) {
            throw new BrokerError(BrokerError.INVALID_TOPIC_SIZE);
        }
        TopicEntity t = new TopicEntity(s, s.topics.nextKey(), name, nowMicros(), (int) partitionsCount,
                expiry == 0 ? U64_MAX : expiry, compression, maxSize == 0 ? U64_MAX : maxSize,
                replication == 0 ? 1 : replication);
        s.topics.insert(t);
        s.topicsByName.put(name, t);
        return topicDetails(t);
    }

    private byte[] getTopic(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        requireAuth(client);
        TopicEntity t = findTopic(findStream(streamId), topicId);
        return t == null ? EMPTY : topicDetails(t);
    }

    private byte[] getTopics(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        requireAuth(client);
        StreamEntity s = stream(streamId);
        WireWriter w = new WireWriter();
        for (TopicEntity t : s.topics.values()) {
            topicHeader(w, t);
        }
        return w.toByteArray();
    }

    private byte[] deleteTopic(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        requireAuth(client);
        StreamEntity s = stream(streamId);
        TopicEntity t = topic(s, topicId);
        dropGroups(t);
        s.topics.remove(t.id);
        s.topicsByName.remove(t.name);
        return EMPTY;
    }

    private static void dropGroups(TopicEntity t) {
        for (ConsumerGroupEntity g : t.groups.values()) {
            for (Member m : g.members.values()) {
                m.client.memberships.remove(g);
            }
        }
    }

    private static WireWriter streamHeader(WireWriter w, StreamEntity s) {
        return w.u32(s.id)
                .u64(s.createdAtMicros)
                .u32(s.topics.size())
                .u64(s.sizeBytes())
                .u64(s.messagesCount())
                .shortString(s.name);
    }

    private static WireWriter topicHeader(WireWriter w, TopicEntity t) {
        return w.u32(t.id)
                .u64(t.createdAtMicros)
                .u32(t.partitions.size())
                .u64(t.messageExpiry)
                .u8(t.compression)
                .u64(t.maxTopicSize)
                .u8(t.replicationFactor)
                .u64(t.sizeBytes())
                .u64(t.messagesCount())
                .shortString(t.name);
    }

    private static byte[] topicDetails(TopicEntity t) {
        WireWriter w = topicHeader(new WireWriter(64 + 40 * t.partitions.size()), t);
        for (PartitionLog p : t.partitions) {
            w.u32(p.id)
                    .u64(p.createdAtMicros)
                    .u32(1)
                    .u64(p.currentOffset())
                    .u64(p.sizeBytes)
                    .u64(p.messages.size());
        }
        return w.toByteArray();
    }

    // ---- consumer groups --------------------------------------------------------------------------------------

    private byte[] createGroup(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        String name = in.name();
        requireAuth(client);
        TopicEntity t = topic(stream(streamId), topicId);
        if (t.groupsByName.containsKey(name)) {
            throw new BrokerError(BrokerError.CONSUMER_GROUP_NAME_EXISTS);
        }
        ConsumerGroupEntity g = new ConsumerGroupEntity(t, t.groups.nextKey(), name);
        t.groups.insert(g);
        t.groupsByName.put(name, g);
        return groupDetails(new WireWriter(), g).toByteArray();
    }

    private byte[] getGroup(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Ident groupId = in.identifier();
        requireAuth(client);
        ConsumerGroupEntity g = findGroup(findTopic(findStream(streamId), topicId), groupId);
        return g == null ? EMPTY : groupDetails(new WireWriter(), g).toByteArray();
    }

    private byte[] getGroups(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        requireAuth(client);
        TopicEntity t = topic(stream(streamId), topicId);
        WireWriter w = new WireWriter();
        for (ConsumerGroupEntity g : t.groups.values()) {
            w.u32(g.id).u32(g.partitions.size()).u32(g.members.size()).shortString(g.name);
        }
        return w.toByteArray();
    }

    private byte[] deleteGroup(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Ident groupId = in.identifier();
        requireAuth(client);
        TopicEntity t = topic(stream(streamId), topicId);
        ConsumerGroupEntity g = group(t, groupId);
        for (Member m : g.members.values()) {
            m.client.memberships.remove(g);
        }
        t.groups.remove(g.id);
        t.groupsByName.remove(g.name);
        return EMPTY;
    }

    private byte[] joinGroup(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Ident groupId = in.identifier();
        requireAuth(client);
        ConsumerGroupEntity g = group(topic(stream(streamId), topicId), groupId);
        g.join(client, System.nanoTime());
        client.memberships.add(g);
        return EMPTY;
    }

    private byte[] leaveGroup(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Ident groupId = in.identifier();
        requireAuth(client);
        ConsumerGroupEntity g = group(topic(stream(streamId), topicId), groupId);
        if (!g.leave(client)) {
            throw new BrokerError(BrokerError.CONSUMER_GROUP_MEMBER_NOT_FOUND);
        }
        client.memberships.remove(g);
        return EMPTY;
    }

    private static WireWriter groupDetails(WireWriter w, ConsumerGroupEntity g) {
        w.u32(g.id).u32(g.partitions.size()).u32(g.members.size()).shortString(g.name);
        for (Member m : g.members.values()) {
            w.u32(m.id).u32(m.partitions.size());
            for (Integer p : m.partitions) {
                w.u32(p);
            }
        }
        return w;
    }

    // ---- consumers, polling and offsets -----------------------------------------------------------------------

    private record ConsumerRef(int kind, Ident id) {
        long singleKey() {
            return id.byName()
                    ? Integer.toUnsignedLong(Xxh32.hash(id.name().getBytes(StandardCharsets.UTF_8)))
                    : id.numeric();
        }
    }

    /** Where a consumer's request landed: a partition, or nothing (a group member without that partition). */
    private record Target(PartitionLog partition, ConsumerGroupEntity group, Member member) {}

    private static ConsumerRef consumer(WireReader in) {
        int kind = in.u8();
        if (kind != 1 && kind != 2) {
            throw new BrokerError(BrokerError.INVALID_COMMAND);
        }
        return new ConsumerRef(kind, in.identifier());
    }

    private static Long optionalPartition(WireReader in) {
        int flag = in.u8();
        long id = in.u32();
        return flag == 1 ? id : null;
    }

    private byte[] poll(ClientSession client, WireReader in) {
        ConsumerRef consumer = consumer(in);
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Long partitionId = optionalPartition(in);
        int strategy = in.u8();
        long value = in.u64();
        long count = in.u32();
        int autoCommit = in.u8();
        if (strategy < 1 || strategy > 5) {
            throw new BrokerError(BrokerError.INVALID_COMMAND);
        }
        requireAuth(client);
        TopicEntity t = topic(stream(streamId), topicId);
        Target target = resolve(client, t, consumer, partitionId, true);
        if (target.partition() == null) {
            return new WireWriter(16).u32(0).u64(0).u32(0).toByteArray();
        }
        PartitionLog p = target.partition();
        long size = p.messages.size();
        long start = switch (strategy) {
            case 1 -> value;
            case 2 -> p.firstOffsetAtOrAfter(value);
            case 3 -> 0;
            case 4 -> size - Math.min(count, size);
            default -> {
                Long stored = storedOffset(consumer, target, p);
                yield stored == null ? 0 : stored + 1;
            }
        };
        long from = Long.compareUnsigned(start, size) < 0 ? start : size;
        long to = Math.min(size, from + count);
        int n = (int) (to - from);
        int bytes = 0;
        for (int i = (int) from; i < to; i++) {
            bytes += p.messages.get(i).length;
        }
        byte[] out = new byte[16 + bytes];
        WireWriter head = new WireWriter(16).u32(p.id).u64(p.currentOffset()).u32(n);
        System.arraycopy(head.toByteArray(), 0, out, 0, 16);
        int at = 16;
        for (int i = (int) from; i < to; i++) {
            byte[] m = p.messages.get(i);
            System.arraycopy(m, 0, out, at, m.length);
            at += m.length;
        }
        if (n > 0) {
            long last = to - 1;
            if (target.group() != null) {
                target.group().lastPolled.put(p.id, last);
            }
            if (autoCommit != 0) {
                commit(consumer, target, p, last);
            }
        }
        return out;
    }

    private byte[] storeOffset(ClientSession client, WireReader in) {
        ConsumerRef consumer = consumer(in);
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Long partitionId = optionalPartition(in);
        long offset = in.u64();
        requireAuth(client);
        TopicEntity t = topic(stream(streamId), topicId);
        Target target = resolve(client, t, consumer, partitionId, false);
        if (target.partition() == null) {
            throw new BrokerError(BrokerError.NOT_RESOLVED_CONSUMER);
        }
        PartitionLog p = target.partition();
        if (p.isEmpty() || Long.compareUnsigned(offset, p.currentOffset()) > 0) {
            throw new BrokerError(BrokerError.INVALID_OFFSET);
        }
        commit(consumer, target, p, offset);
        return EMPTY;
    }

    private byte[] getOffset(ClientSession client, WireReader in) {
        ConsumerRef consumer = consumer(in);
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Long partitionId = optionalPartition(in);
        requireAuth(client);
        // The server's handler turns every lookup failure into "no offset" rather than an error.
        TopicEntity t = findTopic(findStream(streamId), topicId);
        if (t == null) {
            return EMPTY;
        }
        PartitionLog p = t.partition(partitionId == null ? 0 : partitionId);
        if (p == null) {
            return EMPTY;
        }
        Long stored;
        if (consumer.kind() == 2) {
            ConsumerGroupEntity g = findGroup(t, consumer.id());
            stored = g == null ? null : g.offsets.get(p.id);
        } else {
            stored = p.consumerOffsets.get(consumer.singleKey());
        }
        if (stored == null) {
            return EMPTY;
        }
        return new WireWriter(20).u32(p.id).u64(p.currentOffset()).u64(stored).toByteArray();
    }

    /**
     * Partition resolution of the 0.8 server. Single consumers use the given partition (or 0). Group members need
     * membership; an explicit partition must be owned (a partition being revoked is still owned by the loser), and no
     * partition means round-robin over owned partitions that are not being revoked. Polls advance the round-robin
     * counter, stores only read it.
     */
    private static Target resolve(ClientSession client, TopicEntity t, ConsumerRef consumer, Long partitionId,
            boolean advance) {
        if (consumer.kind() == 1) {
            PartitionLog p = t.partition(partitionId == null ? 0 : partitionId);
            if (p == null) {
                throw new BrokerError(BrokerError.PARTITION_NOT_FOUND);
            }
            return new Target(p, null, null);
        }
        ConsumerGroupEntity g = group(t, consumer.id());
        Member m = g.memberOf(client);
        if (m == null) {
            throw new BrokerError(BrokerError.CONSUMER_GROUP_MEMBER_NOT_FOUND);
        }
        if (partitionId != null) {
            boolean owned = partitionId <= Integer.MAX_VALUE && m.partitions.contains(partitionId.intValue());
            return new Target(owned ? t.partition(partitionId) : null, g, m);
        }
        List<Integer> servable = m.servable();
        if (servable.isEmpty()) {
            return new Target(null, g, m);
        }
        int chosen = servable.get((int) Long.remainderUnsigned(m.roundRobin, servable.size()));
        if (advance) {
            m.roundRobin++;
        }
        return new Target(t.partition(chosen), g, m);
    }

    private static Long storedOffset(ConsumerRef consumer, Target target, PartitionLog p) {
        if (target.group() != null) {
            return target.group().offsets.get(p.id);
        }
        return p.consumerOffsets.get(consumer.singleKey());
    }

    /** No monotonic check, exactly like the server: offsets may move backwards. */
    private static void commit(ConsumerRef consumer, Target target, PartitionLog p, long offset) {
        if (target.group() != null) {
            target.group().offsets.put(p.id, offset);
            target.group().onCommitted(target.member(), p.id);
        } else {
            p.consumerOffsets.put(consumer.singleKey(), offset);
        }
    }

    // ---- sending ----------------------------------------------------------------------------------------------

    private byte[] send(ClientSession client, byte[] payload) {
        requireAuth(client);
        WireReader in = new WireReader(payload);
        long metadataLength = in.u32();
        if (metadataLength > in.remaining()) {
            throw new BrokerError(BrokerError.INVALID_COMMAND);
        }
        WireReader meta = new WireReader(payload, in.position(), (int) metadataLength);
        Ident streamId = meta.identifier(BrokerError.INVALID_IDENTIFIER, BrokerError.INVALID_IDENTIFIER);
        Ident topicId = meta.identifier(BrokerError.INVALID_IDENTIFIER, BrokerError.INVALID_IDENTIFIER);
        int partitioningKind = meta.u8();
        byte[] partitioningValue = meta.bytes(meta.u8());
        long count = meta.u32();
        validatePartitioning(partitioningKind, partitioningValue);
        if (count == 0) {
            throw new BrokerError(BrokerError.INVALID_MESSAGES_COUNT);
        }
        int indexesAt = 4 + (int) metadataLength;
        long indexesLength = count * 16;
        if (indexesLength > payload.length - indexesAt) {
            throw new BrokerError(BrokerError.INVALID_COMMAND);
        }
        int n = (int) count;
        int messagesAt = indexesAt + (int) indexesLength;
        int sectionLength = payload.length - messagesAt;
        int[] ends = new int[n];
        long previousPosition = 0;
        for (int i = 0; i < n; i++) {
            int at = indexesAt + 16 * i;
            if (WireReader.leInt(payload, at) != 0) {
                throw new BrokerError(BrokerError.NON_ZERO_INDEX_OFFSET);
            }
            long position = Integer.toUnsignedLong(WireReader.leInt(payload, at + 4));
            if (WireReader.leLong(payload, at + 8) != 0) {
                throw new BrokerError(BrokerError.NON_ZERO_INDEX_TIMESTAMP);
            }
            if (position < previousPosition) {
                throw new BrokerError(BrokerError.INVALID_INDEX_POSITION);
            }
            previousPosition = position;
            ends[i] = (int) Math.min(position, Integer.MAX_VALUE);
        }
        // The last message always runs to the end of the section, whatever its index says.
        ends[n - 1] = sectionLength;
        int[] sizes = new int[n];
        long declaredTotal = 0;
        long previousOffset = 0;
        int start = 0;
        for (int i = 0; i < n; i++) {
            int span = ends[i] - start;
            if (start > sectionLength || span < MESSAGE_HEADER_SIZE) {
                throw new BrokerError(BrokerError.INVALID_MESSAGE_SIZE);
            }
            int at = messagesAt + start;
            long headersLength = Integer.toUnsignedLong(WireReader.leInt(payload, at + 48));
            long payloadLength = Integer.toUnsignedLong(WireReader.leInt(payload, at + 52));
            if (payloadLength > MAX_PAYLOAD_BYTES) {
                throw new BrokerError(BrokerError.TOO_BIG_PAYLOAD);
            }
            if (headersLength > MAX_USER_HEADERS_BYTES) {
                throw new BrokerError(BrokerError.TOO_BIG_USER_HEADERS);
            }
            long size = MESSAGE_HEADER_SIZE + payloadLength + headersLength;
            if (size > span) {
                throw new BrokerError(BrokerError.INVALID_MESSAGE_SIZE);
            }
            long offset = WireReader.leLong(payload, at + 24);
            if (Long.compareUnsigned(offset, previousOffset) < 0) {
                throw new BrokerError(BrokerError.INVALID_OFFSET);
            }
            previousOffset = offset;
            sizes[i] = (int) size;
            declaredTotal += size;
            start = ends[i];
        }
        if (declaredTotal != sectionLength) {
            throw new BrokerError(BrokerError.MISMATCHED_MESSAGES_SIZE);
        }

        TopicEntity t = topic(stream(streamId), topicId);
        PartitionLog p = pickPartition(t, partitioningKind, partitioningValue);
        long timestamp = nextTimestamp();
        start = 0;
        for (int i = 0; i < n; i++) {
            byte[] m = new byte[sizes[i]];
            System.arraycopy(payload, messagesAt + start, m, 0, sizes[i]);
            start = ends[i];
            stamp(m, p.messages.size(), timestamp);
            p.messages.add(m);
            p.sizeBytes += m.length;
        }
        return EMPTY;
    }

    private static void validatePartitioning(int kind, byte[] value) {
        switch (kind) {
            case 1 -> {
                if (value.length != 0) {
                    throw new BrokerError(BrokerError.INVALID_FORMAT);
                }
            }
            case 2 -> {
                if (value.length != 4) {
                    throw new BrokerError(BrokerError.INVALID_FORMAT);
                }
            }
            case 3 -> {
                if (value.length == 0) {
                    throw new BrokerError(BrokerError.INVALID_FORMAT);
                }
            }
            default -> throw new BrokerError(BrokerError.INVALID_COMMAND);
        }
    }

    private static PartitionLog pickPartition(TopicEntity t, int kind, byte[] value) {
        int partitions = t.partitions.size();
        long chosen = switch (kind) {
            case 1 -> partitions == 0 ? 0 : Long.remainderUnsigned(t.balancedCounter++, partitions);
            case 2 -> Integer.toUnsignedLong(WireReader.leInt(value, 0));
            default -> partitions == 0 ? 0 : Integer.toUnsignedLong(Xxh32.hash(value)) % partitions;
        };
        PartitionLog p = t.partition(chosen);
        if (p == null) {
            throw new BrokerError(BrokerError.PARTITION_NOT_FOUND);
        }
        return p;
    }

    /** Server-side assignment: offset, batch timestamp, a random id for id 0, then the checksum over bytes 8..end. */
    private static void stamp(byte[] m, long offset, long timestampMicros) {
        WireReader.putLeLong(m, 24, offset);
        WireReader.putLeLong(m, 32, timestampMicros);
        if (WireReader.leLong(m, 8) == 0 && WireReader.leLong(m, 16) == 0) {
            // UUIDv4 layout from a fast PRNG: UUID.randomUUID() draws from SecureRandom, too slow for 1M messages.
            ThreadLocalRandom random = ThreadLocalRandom.current();
            long msb = (random.nextLong() & ~0xF000L) | 0x4000L;
            long lsb = (random.nextLong() & ~(0xC000L << 48)) | (0x8000L << 48);
            WireReader.putLeLong(m, 8, lsb);
            WireReader.putLeLong(m, 16, msb);
        }
        WireReader.putLeLong(m, 0, XXH3.hashBytes(m, 8, m.length - 8));
    }

    private long nextTimestamp() {
        long now = Math.max(nowMicros(), lastTimestampMicros + 1);
        lastTimestampMicros = now;
        return now;
    }

    static long nowMicros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
