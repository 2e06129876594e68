package dev.iggysink.adapters.iggy;

import static dev.iggysink.adapters.iggy.RequestBytes.bytes;
import static dev.iggysink.adapters.iggy.RequestBytes.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.iggysink.domain.message.PartitionRef;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.math.BigInteger;
import java.util.Optional;
import java.util.Random;
import org.apache.iggy.consumergroup.Consumer;
import org.apache.iggy.identifier.ConsumerId;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.PollingStrategy;
import org.apache.iggy.serde.BytesSerializer;
import org.junit.jupiter.api.Test;

/** {@link AsyncIggyConnection#pollRequest} against the request the client's own serializers make. */
class PollRequestTest {
    /** How the client's {@code MessagesTcpClient.pollMessages} writes a group member's explicit-partition poll. */
    private static byte[] clients(String group, PartitionRef p, long offset, int count) {
        ByteBuf request = Unpooled.buffer();
        for (ByteBuf part : new ByteBuf[] {
                BytesSerializer.toBytes(Consumer.group(ConsumerId.of(group))),
                BytesSerializer.toBytes(StreamId.of(p.stream())),
                BytesSerializer.toBytes(TopicId.of(p.topic())),
                BytesSerializer.toBytes(Optional.of((long) p.partitionId())),
                BytesSerializer.toBytes(PollingStrategy.offset(BigInteger.valueOf(offset)))}) {
            request.writeBytes(part);
            part.release();
        }
        request.writeIntLE(count);
        request.writeByte(0);
        return bytes(request);
    }

    @Test
    void the_same_bytes_as_the_clients_serializers_for_random_names_partitions_offsets_and_counts() {
        Random random = new Random(100);
        long[] edges = {0, 1, 255, 256, 1L << 32, Long.MAX_VALUE};
        for (int i = 0; i < 2_000; i++) {
            PartitionRef p = new PartitionRef(name(random), name(random), random.nextInt(i % 3 == 0 ? 10 : 100_000));
            long offset = i < edges.length ? edges[i] : random.nextLong() & Long.MAX_VALUE;
            int count = 1 + random.nextInt(10_000);
            String group = name(random);

            assertThat(bytes(AsyncIggyConnection.pollRequest(group, p, offset, count)))
                    .as("group %s, %s, offset %d, count %d", group, p, offset, count)
                    .isEqualTo(clients(group, p, offset, count));
        }
    }

    @Test
    void a_non_ascii_name_is_written_with_its_length_in_bytes() {
        byte[] request = bytes(AsyncIggyConnection.pollRequest("grüppe", new PartitionRef("s", "t", 1), 0, 1));

        assertThat(request[0]).as("consumer group kind").isEqualTo((byte) 2);
        assertThat(request[1]).as("identifier by name").isEqualTo((byte) 2);
        assertThat(request[2]).as("UTF-8 bytes of the name").isEqualTo((byte) 7);
    }

    @Test
    void a_name_the_wire_cannot_carry_and_a_negative_offset_are_refused() {
        PartitionRef p = new PartitionRef("s".repeat(256), "t", 1);
        assertThatThrownBy(() -> AsyncIggyConnection.pollRequest("g", p, 0, 1))
                .hasMessage("the stream name must be 1 to 255 bytes, was 256");
        assertThatThrownBy(() -> AsyncIggyConnection.pollRequest("g", new PartitionRef("s", "t", 1), -1, 1))
                .hasMessage("a poll offset must be >= 0, was -1");
    }
}
