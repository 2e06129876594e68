package dev.iggysink.testkit.iggy;

import dev.iggysink.testkit.iggy.ConsumerGroupEntity.Member;
import dev.iggysink.testkit.iggy.WireReader.Ident;

/** Streams and topics (with their fixed partitions): create, get, list, delete. */
final class StreamCommands {

    private static final long U64_MAX = -1L;
    private static final long SEGMENT_SIZE_BYTES = 1L << 30;
    private static final int MAX_PARTITIONS_PER_REQUEST = 1000;

    private final Catalog catalog;

    StreamCommands(Catalog catalog) {
        this.catalog = catalog;
    }

    byte[] createStream(ClientSession client, WireReader in) {
        String name = in.name();
        client.requireAuthenticated();
        if (catalog.streamsByName.containsKey(name)) {
            throw new BrokerError(BrokerError.STREAM_NAME_ALREADY_EXISTS);
        }
        StreamEntity s = new StreamEntity(catalog.streams.nextKey(), name, BrokerState.nowMicros());
        catalog.streams.insert(s);
        catalog.streamsByName.put(name, s);
        return streamHeader(new WireWriter(), s).toByteArray();
    }

    byte[] getStream(ClientSession client, WireReader in) {
        Ident id = in.identifier();
        client.requireAuthenticated();
        StreamEntity s = catalog.findStream(id);
        if (s == null) {
            return BrokerState.EMPTY;
        }
        WireWriter w = streamHeader(new WireWriter(), s);
        for (TopicEntity t : s.topics.values()) {
            topicHeader(w, t);
        }
        return w.toByteArray();
    }

    byte[] getStreams(ClientSession client) {
        client.requireAuthenticated();
        WireWriter w = new WireWriter();
        for (StreamEntity s : catalog.streams.values()) {
            streamHeader(w, s);
        }
        return w.toByteArray();
    }

    byte[] deleteStream(ClientSession client, WireReader in) {
        Ident id = in.identifier();
        client.requireAuthenticated();
        StreamEntity s = catalog.stream(id);
        for (TopicEntity t : s.topics.values()) {
            dropGroups(t);
        }
        catalog.streams.remove(s.id);
        catalog.streamsByName.remove(s.name);
        return BrokerState.EMPTY;
    }

    byte[] createTopic(ClientSession client, WireReader in) {
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
        client.requireAuthenticated();
        if (partitionsCount > MAX_PARTITIONS_PER_REQUEST) {
            throw new BrokerError(BrokerError.TOO_MANY_PARTITIONS);
        }
        StreamEntity s = catalog.stream(streamId);
        if (s.topicsByName.containsKey(name)) {
            throw new BrokerError(BrokerError.TOPIC_NAME_ALREADY_EXISTS);
        }
        if (maxSize != 0 && maxSize != U64_MAX && Long.compareUnsigned(maxSize, SEGMENT_SIZE_BYTES) < 0) {
            throw new BrokerError(BrokerError.INVALID_TOPIC_SIZE);
        }
        TopicEntity t = new TopicEntity(s, s.topics.nextKey(), name, BrokerState.nowMicros(), (int) partitionsCount,
                expiry == 0 ? U64_MAX : expiry, compression, maxSize == 0 ? U64_MAX : maxSize,
                replication == 0 ? 1 : replication);
        s.topics.insert(t);
        s.topicsByName.put(name, t);
        return topicDetails(t);
    }

    byte[] getTopic(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        client.requireAuthenticated();
        TopicEntity t = Catalog.findTopic(catalog.findStream(streamId), topicId);
        return t == null ? BrokerState.EMPTY : topicDetails(t);
    }

    byte[] getTopics(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        client.requireAuthenticated();
        StreamEntity s = catalog.stream(streamId);
        WireWriter w = new WireWriter();
        for (TopicEntity t : s.topics.values()) {
            topicHeader(w, t);
        }
        return w.toByteArray();
    }

    byte[] deleteTopic(ClientSession client, WireReader in) {
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        client.requireAuthenticated();
        StreamEntity s = catalog.stream(streamId);
        TopicEntity t = Catalog.topic(s, topicId);
        dropGroups(t);
        s.topics.remove(t.id);
        s.topicsByName.remove(t.name);
        return BrokerState.EMPTY;
    }

    /** The members of a deleted topic's groups are no longer members of anything there. */
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
}
