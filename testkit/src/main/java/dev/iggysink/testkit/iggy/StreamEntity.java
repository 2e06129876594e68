package dev.iggysink.testkit.iggy;

import java.util.HashMap;
import java.util.Map;

/** A stream and its topics; guarded by the {@link BrokerState} lock like every entity. */
final class StreamEntity {

    final int id;
    final String name;
    final long createdAtMicros;
    final Slab<TopicEntity> topics = new Slab<>();
    final Map<String, TopicEntity> topicsByName = new HashMap<>();

    StreamEntity(int id, String name, long createdAtMicros) {
        this.id = id;
        this.name = name;
        this.createdAtMicros = createdAtMicros;
    }

    long sizeBytes() {
        long total = 0;
        for (TopicEntity t : topics.values()) {
            total += t.sizeBytes();
        }
        return total;
    }

    long messagesCount() {
        long total = 0;
        for (TopicEntity t : topics.values()) {
            total += t.messagesCount();
        }
        return total;
    }
}
