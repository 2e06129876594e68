package dev.iggysink.testkit.iggy;

import dev.iggysink.testkit.iggy.ConsumerGroupEntity.Member;
import dev.iggysink.testkit.iggy.WireReader.Ident;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * What a consumer does: poll messages, and store or read its offset. A consumer is a single consumer (offsets per
 * partition and consumer id) or a group member (offsets per group, partitions from the group's assignment).
 */
final class ConsumerCommands {

    private record ConsumerRef(int kind, Ident id) {
        long singleKey() {
            return id.byName()
                    ? Integer.toUnsignedLong(Xxh32.hash(id.name().getBytes(StandardCharsets.UTF_8)))
                    : id.numeric();
        }
    }

    /** Where a consumer's request landed: a partition, or nothing (a group member without that partition). */
    private record Target(PartitionLog partition, ConsumerGroupEntity group, Member member) {}

    private final Catalog catalog;

    ConsumerCommands(Catalog catalog) {
        this.catalog = catalog;
    }

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

    byte[] poll(ClientSession client, WireReader in) {
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
        client.requireAuthenticated();
        TopicEntity t = Catalog.topic(catalog.stream(streamId), topicId);
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

    byte[] storeOffset(ClientSession client, WireReader in) {
        ConsumerRef consumer = consumer(in);
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Long partitionId = optionalPartition(in);
        long offset = in.u64();
        client.requireAuthenticated();
        TopicEntity t = Catalog.topic(catalog.stream(streamId), topicId);
        Target target = resolve(client, t, consumer, partitionId, false);
        if (target.partition() == null) {
            throw new BrokerError(BrokerError.NOT_RESOLVED_CONSUMER);
        }
        PartitionLog p = target.partition();
        if (p.isEmpty() || Long.compareUnsigned(offset, p.currentOffset()) > 0) {
            throw new BrokerError(BrokerError.INVALID_OFFSET);
        }
        commit(consumer, target, p, offset);
        return BrokerState.EMPTY;
    }

    byte[] getOffset(ClientSession client, WireReader in) {
        ConsumerRef consumer = consumer(in);
        Ident streamId = in.identifier();
        Ident topicId = in.identifier();
        Long partitionId = optionalPartition(in);
        client.requireAuthenticated();
        // The server's handler turns every lookup failure into "no offset" rather than an error.
        TopicEntity t = Catalog.findTopic(catalog.findStream(streamId), topicId);
        if (t == null) {
            return BrokerState.EMPTY;
        }
        PartitionLog p = t.partition(partitionId == null ? 0 : partitionId);
        if (p == null) {
            return BrokerState.EMPTY;
        }
        Long stored;
        if (consumer.kind() == 2) {
            ConsumerGroupEntity g = Catalog.findGroup(t, consumer.id());
            stored = g == null ? null : g.offsets.get(p.id);
        } else {
            stored = p.consumerOffsets.get(consumer.singleKey());
        }
        if (stored == null) {
            return BrokerState.EMPTY;
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
        ConsumerGroupEntity g = Catalog.group(t, consumer.id());
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
}
