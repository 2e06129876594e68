package dev.iggysink.testkit.iggy;

import dev.iggysink.testkit.iggy.WireReader.Ident;
import java.time.Instant;
import java.time.InstantSource;
import java.util.concurrent.ThreadLocalRandom;
import net.openhft.hashing.LongHashFunction;

/**
 * Sending messages: the batch is checked as the 0.8 server checks it (index entries, sizes, limits), the partition
 * chosen (balanced, explicit or by key), and each message stamped with its offset, timestamp, id and checksum.
 */
final class SendCommand {

    private static final int MESSAGE_HEADER_SIZE = 64;
    private static final long MAX_PAYLOAD_BYTES = 64L * 1000 * 1000;
    private static final long MAX_USER_HEADERS_BYTES = 100L * 1000;
    private static final LongHashFunction XXH3 = LongHashFunction.xx3();

    private final Catalog catalog;
    private long lastTimestampMicros;
    private InstantSource clock = InstantSource.system();

    SendCommand(Catalog catalog) {
        this.catalog = catalog;
    }

    byte[] send(ClientSession client, byte[] payload) {
        client.requireAuthenticated();
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

        TopicEntity t = Catalog.topic(catalog.stream(streamId), topicId);
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
        return BrokerState.EMPTY;
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

    /** The clock messages are stamped with from now on; a clock set back still never stamps an earlier time. */
    void stampClock(InstantSource clock) {
        this.clock = clock;
    }

    private long nextTimestamp() {
        Instant at = clock.instant();
        long now = Math.max(at.getEpochSecond() * 1_000_000L + at.getNano() / 1_000, lastTimestampMicros + 1);
        lastTimestampMicros = now;
        return now;
    }
}
