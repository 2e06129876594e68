package dev.iggysink.testkit.iggy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** A topic: fixed partitions 0..n-1, the balanced-partitioning counter and its consumer groups. */
final class TopicEntity {

    final StreamEntity stream;
    final int id;
    final String name;
    final long createdAtMicros;
    final long messageExpiry;
    final int compression;
    final long maxTopicSize;
    final int replicationFactor;
    final List<PartitionLog> partitions = new ArrayList<>();
    final Slab<ConsumerGroupEntity> groups = new Slab<>();
    final Map<String, ConsumerGroupEntity> groupsByName = new HashMap<>();
    long balancedCounter;

    TopicEntity(StreamEntity stream, int id, String name, long createdAtMicros, int partitionsCount,
            long messageExpiry, int compression, long maxTopicSize, int replicationFactor) {
        this.stream = stream;
        this.id = id;
        this.name = name;
        this.createdAtMicros = createdAtMicros;
        this.messageExpiry = messageExpiry;
        this.compression = compression;
        this.maxTopicSize = maxTopicSize;
        this.replicationFactor = replicationFactor;
        for (int i = 0; i < partitionsCount; i++) {
            partitions.add(new PartitionLog(i, createdAtMicros));
        }
    }

    PartitionLog partition(long partitionId) {
        return partitionId >= 0 && partitionId < partitions.size() ? partitions.get((int) partitionId) : null;
    }

    long sizeBytes() {
        long total = 0;
        for (PartitionLog p : partitions) {
            total += p.sizeBytes;
        }
        return total;
    }

    long messagesCount() {
        long total = 0;
        for (PartitionLog p : partitions) {
            total += p.messages.size();
        }
        return total;
    }
}
