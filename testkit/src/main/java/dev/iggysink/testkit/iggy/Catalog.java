package dev.iggysink.testkit.iggy;

import dev.iggysink.testkit.iggy.WireReader.Ident;
import java.util.HashMap;
import java.util.Map;

/**
 * The streams, and the lookups every command family shares: a {@code find} answers null, the plain form throws the
 * server's "not found" error. Guarded by the {@link BrokerState} lock like every entity.
 */
final class Catalog {

    final Slab<StreamEntity> streams = new Slab<>();
    final Map<String, StreamEntity> streamsByName = new HashMap<>();

    StreamEntity findStream(Ident id) {
        return id.byName() ? streamsByName.get(id.name()) : streams.get(id.numeric());
    }

    StreamEntity stream(Ident id) {
        StreamEntity s = findStream(id);
        if (s == null) {
            throw new BrokerError(BrokerError.STREAM_ID_NOT_FOUND);
        }
        return s;
    }

    static TopicEntity findTopic(StreamEntity s, Ident id) {
        if (s == null) {
            return null;
        }
        return id.byName() ? s.topicsByName.get(id.name()) : s.topics.get(id.numeric());
    }

    static TopicEntity topic(StreamEntity s, Ident id) {
        TopicEntity t = findTopic(s, id);
        if (t == null) {
            throw new BrokerError(BrokerError.TOPIC_ID_NOT_FOUND);
        }
        return t;
    }

    static ConsumerGroupEntity findGroup(TopicEntity t, Ident id) {
        if (t == null) {
            return null;
        }
        return id.byName() ? t.groupsByName.get(id.name()) : t.groups.get(id.numeric());
    }

    static ConsumerGroupEntity group(TopicEntity t, Ident id) {
        ConsumerGroupEntity g = findGroup(t, id);
        if (g == null) {
            throw new BrokerError(BrokerError.CONSUMER_GROUP_NOT_FOUND);
        }
        return g;
    }

    /** Messages in one partition, 0 for a stream, topic or partition that does not exist. */
    long messageCount(String stream, String topic, int partition) {
        StreamEntity s = streamsByName.get(stream);
        TopicEntity t = s == null ? null : s.topicsByName.get(topic);
        PartitionLog p = t == null ? null : t.partition(partition);
        return p == null ? 0 : p.messages.size();
    }

    void expireRevocations(long nowNanos, long rebalancingTimeoutNanos) {
        for (StreamEntity s : streams.values()) {
            for (TopicEntity t : s.topics.values()) {
                for (ConsumerGroupEntity g : t.groups.values()) {
                    g.expireRevocations(nowNanos, rebalancingTimeoutNanos);
                }
            }
        }
    }
}
