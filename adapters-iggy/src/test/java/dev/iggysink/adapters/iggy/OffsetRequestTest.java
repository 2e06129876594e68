package dev.iggysink.adapters.iggy;

import static dev.iggysink.adapters.iggy.RequestBytes.bytes;
import static dev.iggysink.adapters.iggy.RequestBytes.name;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.math.BigInteger;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import org.apache.iggy.consumergroup.Consumer;
import org.apache.iggy.identifier.ConsumerId;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.serde.BytesDeserializer;
import org.apache.iggy.serde.BytesSerializer;
import org.junit.jupiter.api.Test;

/**
 * {@link AsyncIggyConnection#offsetRequest} and {@link AsyncIggyConnection#storedOffset(ByteBuf)} against what the
 * client's own serializers write and read for GET_CONSUMER_OFFSET and STORE_CONSUMER_OFFSET.
 */
class OffsetRequestTest {
    /** How the client's {@code ConsumerOffsetsTcpClient} writes a group's request for one partition. */
    private static byte[] clients(String group, String stream, String topic, int partition, Long offset) {
        ByteBuf request = Unpooled.buffer();
        for (ByteBuf part : new ByteBuf[] {
                BytesSerializer.toBytes(Consumer.group(ConsumerId.of(group))),
                BytesSerializer.toBytes(StreamId.of(stream)),
                BytesSerializer.toBytes(TopicId.of(topic)),
                BytesSerializer.toBytes(Optional.of((long) partition)),
                offset == null ? Unpooled.EMPTY_BUFFER : BytesSerializer.toBytesAsU64(BigInteger.valueOf(offset))}) {
            request.writeBytes(part);
            part.release();
        }
        return bytes(request);
    }

    @Test
    void get_and_store_requests_are_the_clients_bytes_for_random_names_partitions_and_offsets() {
        Random random = new Random(120);
        long[] edges = {0, 1, 255, 256, 1L << 32, Long.MAX_VALUE};
        for (int i = 0; i < 2_000; i++) {
            String group = name(random);
            String stream = name(random);
            String topic = name(random);
            int partition = random.nextInt(i % 3 == 0 ? 10 : 100_000);
            long offset = i < edges.length ? edges[i] : random.nextLong() & Long.MAX_VALUE;

            assertThat(bytes(AsyncIggyConnection.offsetRequest(group, stream, topic, partition)))
                    .as("GET of group %s, %s/%s partition %d", group, stream, topic, partition)
                    .isEqualTo(clients(group, stream, topic, partition, null));
            ByteBuf store = AsyncIggyConnection.offsetRequest(group, stream, topic, partition);
            store.writeLongLE(offset);
            assertThat(bytes(store)).as("STORE of offset %d", offset)
                    .isEqualTo(clients(group, stream, topic, partition, offset));
        }
    }

    @Test
    void the_stored_offset_of_an_answer_is_the_one_the_clients_deserializer_reads() {
        Random random = new Random(121);
        for (int i = 0; i < 1_000; i++) {
            long stored = i == 0 ? Long.MAX_VALUE : random.nextLong() & Long.MAX_VALUE;
            ByteBuf answer = Unpooled.buffer(20);
            answer.writeIntLE(random.nextInt(1000)).writeLongLE(random.nextLong() & Long.MAX_VALUE)
                    .writeLongLE(stored);
            long clients = BytesDeserializer.readConsumerOffsetInfo(answer.duplicate()).storedOffset().longValueExact();

            assertThat(AsyncIggyConnection.storedOffset(answer)).hasValue(clients).hasValue(stored);
            assertThat(answer.refCnt()).as("the answer is released").isZero();
        }
    }

    @Test
    void an_empty_answer_is_no_stored_offset_and_one_past_two_to_the_63_is_refused() {
        assertThat(AsyncIggyConnection.storedOffset(Unpooled.buffer(0))).isEqualTo(OptionalLong.empty());

        ByteBuf huge = Unpooled.buffer(20).writeIntLE(1).writeLongLE(0).writeLongLE(-1L);
        assertThatThrownBy(() -> AsyncIggyConnection.storedOffset(huge)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("past 2^63");
    }
}
