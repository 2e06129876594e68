package dev.iggysink.adapters.iggy;

import dev.iggysink.benchmarks.Payloads;
import dev.iggysink.domain.message.HeaderKind;
import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.RecordHeader;
import dev.iggysink.domain.message.SinkRecord;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.iggy.message.HeaderKey;
import org.apache.iggy.message.HeaderValue;
import org.apache.iggy.message.Message;
import org.apache.iggy.message.MessageHeader;
import org.apache.iggy.message.PolledMessages;
import org.apache.iggy.serde.BytesDeserializer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One POLL answer of 1,000 messages of 1 KiB decoded into {@link SinkRecord}s: {@code clientPath} the way the sink
 * did it through the Iggy client (its {@code BytesDeserializer}, BigIntegers and message objects, then a conversion to
 * records), {@code decoder} with {@link PollResponseDecoder}. Scores are per message ({@code -prof gc} gives the
 * bytes allocated per message as {@code gc.alloc.rate.norm}).
 *
 * <p>It lives in the adapter's package, not with the other micro-benchmarks, because the decoder is package-private:
 * the adapter keeps its Netty and Iggy types to itself.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class PollDecodeBench {
    private static final int MESSAGES = 1000;
    private static final int PAYLOAD = 1024;
    private static final PartitionRef PARTITION = new PartitionRef("application_logs", "api_requests", 3);
    private static final BigInteger U64_MASK = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);
    private static final Comparator<RecordHeader> HEADER_ORDER = Comparator
            .comparingInt((RecordHeader h) -> h.keyKind().code())
            .thenComparing(RecordHeader::key, Arrays::compareUnsigned)
            .thenComparingInt(h -> h.valueKind().code())
            .thenComparing(RecordHeader::value, Arrays::compareUnsigned);

    /** Two string user headers per message, or none. */
    @Param({"false", "true"})
    public boolean headers;

    private ByteBuf response;

    @Setup
    public void setUp() {
        byte[] userHeaders = headers ? userHeaders() : new byte[0];
        // As the client hands an answer over: a slice of a pooled direct frame, past its status and length.
        ByteBuf frame = PooledByteBufAllocator.DEFAULT.directBuffer();
        frame.writeIntLE(0).writeIntLE(0);
        int bodyAt = frame.writerIndex();
        frame.writeIntLE(PARTITION.partitionId()).writeLongLE(1_000_000L + MESSAGES - 1).writeIntLE(MESSAGES);
        long t0 = 1_768_472_430_000_000L;
        for (int i = 0; i < MESSAGES; i++) {
            byte[] payload = Payloads.json(i, PAYLOAD);
            long offset = 1_000_000L + i;
            frame.writeLongLE(0x5eed_0000L + i) // checksum
                    .writeLongLE(0x8000_0000_0000_0000L | i).writeLongLE(0x4000_0000_0000_0000L | i) // id
                    .writeLongLE(offset).writeLongLE(t0 + i * 1_000L).writeLongLE(t0 + i * 1_000L)
                    .writeIntLE(userHeaders.length).writeIntLE(payload.length).writeLongLE(0)
                    .writeBytes(payload).writeBytes(userHeaders);
        }
        frame.setIntLE(4, frame.writerIndex() - bodyAt);
        frame.readerIndex(bodyAt);
        response = frame.retainedSlice();
        frame.release();
    }

    @TearDown
    public void tearDown() {
        response.release();
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public List<SinkRecord> clientPath() {
        PolledMessages polled = BytesDeserializer.readPolledMessages(response.duplicate());
        polled.currentOffset().longValueExact();
        List<SinkRecord> records = new ArrayList<>(polled.messages().size());
        for (Message m : polled.messages()) {
            records.add(toRecord(m));
        }
        return records;
    }

    @Benchmark
    @OperationsPerInvocation(MESSAGES)
    public List<SinkRecord> decoder() {
        return PollResponseDecoder.decode(response, PARTITION).records();
    }

    // ---- the sink's conversion of the client's messages before the decoder ---------------------------------------

    private static SinkRecord toRecord(Message message) {
        MessageHeader h = message.header();
        BigInteger id = h.id().toBigInteger();
        return new SinkRecord(PARTITION, h.offset().longValueExact(), h.timestamp().longValueExact(),
                h.originTimestamp().longValueExact(),
                new MessageId(id.shiftRight(64).longValue(), id.and(U64_MASK).longValue()),
                toHeaders(message.userHeaders()), message.payload());
    }

    private static List<RecordHeader> toHeaders(Map<HeaderKey, HeaderValue> headers) {
        if (headers == null || headers.isEmpty()) {
            return List.of();
        }
        List<RecordHeader> out = new ArrayList<>(headers.size());
        for (Map.Entry<HeaderKey, HeaderValue> e : headers.entrySet()) {
            out.add(new RecordHeader(HeaderKind.ofCode(e.getKey().kind().asCode()), e.getKey().value(),
                    HeaderKind.ofCode(e.getValue().kind().asCode()), e.getValue().value()));
        }
        out.sort(HEADER_ORDER);
        return out;
    }

    private static byte[] userHeaders() {
        ByteBuf b = io.netty.buffer.Unpooled.buffer();
        String[][] entries = {{"trace_id", "4bf92f3577b34da6a3ce929d0e0e4736"}, {"source", "gateway-eu-1"}};
        for (String[] e : entries) {
            byte[] key = e[0].getBytes(StandardCharsets.UTF_8);
            byte[] value = e[1].getBytes(StandardCharsets.UTF_8);
            b.writeByte(HeaderKind.STRING.code()).writeIntLE(key.length).writeBytes(key);
            b.writeByte(HeaderKind.STRING.code()).writeIntLE(value.length).writeBytes(value);
        }
        byte[] out = new byte[b.readableBytes()];
        b.readBytes(out);
        return out;
    }
}
