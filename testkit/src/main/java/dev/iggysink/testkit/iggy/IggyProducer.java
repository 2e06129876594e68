package dev.iggysink.testkit.iggy;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntFunction;
import org.apache.iggy.client.blocking.tcp.IggyTcpClient;
import org.apache.iggy.exception.IggyServerException;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.HeaderKey;
import org.apache.iggy.message.HeaderValue;
import org.apache.iggy.message.Message;
import org.apache.iggy.message.MessageHeader;
import org.apache.iggy.message.MessageId;
import org.apache.iggy.message.Partitioning;
import org.apache.iggy.topic.CompressionAlgorithm;

/**
 * Seeds streams, topics and messages through the real 0.8 blocking TCP client, so test data takes the same path as a
 * production producer's. Not thread-safe (one pooled connection).
 */
public final class IggyProducer implements AutoCloseable {

    /** Batch size of {@link #sendJson}: large enough to be fast, small enough to stay well under frame limits. */
    public static final int JSON_BATCH = 1000;

    private static final int STREAM_NAME_EXISTS = 1012;
    private static final int STREAM_NOT_FOUND = 1009;
    private static final int TOPIC_NAME_EXISTS = 2013;

    private final IggyTcpClient client;

    private IggyProducer(IggyTcpClient client) {
        this.client = client;
    }

    /** Connects and logs in as root {@code iggy/iggy}. */
    public static IggyProducer connect(String host, int port) {
        return connect(host, port, "iggy", "iggy");
    }

    public static IggyProducer connect(String host, int port, String user, String password) {
        IggyTcpClient client = IggyTcpClient.builder()
                .host(host)
                .port(port)
                .credentials(user, password)
                .connectionPoolSize(1)
                .buildAndLogin();
        return new IggyProducer(client);
    }

    /** The underlying client, for calls this helper does not wrap. */
    public IggyTcpClient client() {
        return client;
    }

    public void createStreamIfMissing(String stream) {
        if (client.streams().getStream(StreamId.of(stream)).isPresent()) {
            return;
        }
        try {
            client.streams().createStream(stream);
        } catch (IggyServerException e) {
            if (e.getRawErrorCode() != STREAM_NAME_EXISTS) {
                throw e;
            }
        }
    }

    /** Creates the topic (no compression, server-default expiry and size) unless a topic of that name exists. */
    public void createTopicIfMissing(String stream, String topic, int partitions) {
        if (client.topics().getTopic(StreamId.of(stream), TopicId.of(topic)).isPresent()) {
            return;
        }
        try {
            client.topics().createTopic(StreamId.of(stream), (long) partitions, CompressionAlgorithm.None,
                    BigInteger.ZERO, BigInteger.ZERO, Optional.empty(), topic);
        } catch (IggyServerException e) {
            if (e.getRawErrorCode() != TOPIC_NAME_EXISTS) {
                throw e;
            }
        }
    }

    /** Sends the payloads to one partition as a single batch (one server timestamp). */
    public void send(String stream, String topic, int partition, List<byte[]> payloads) {
        send(stream, topic, partition, payloads, Map.of());
    }

    /** As {@link #send(String, String, int, List)}, every message carrying the same string-kind user headers. */
    public void send(String stream, String topic, int partition, List<byte[]> payloads,
            Map<String, String> stringHeaders) {
        Map<HeaderKey, HeaderValue> headers = new LinkedHashMap<>();
        stringHeaders.forEach((k, v) -> headers.put(HeaderKey.fromString(k), HeaderValue.fromString(v)));
        List<Message> messages = new ArrayList<>(payloads.size());
        for (byte[] payload : payloads) {
            messages.add(message(payload, headers));
        }
        client.messages().sendMessages(StreamId.of(stream), TopicId.of(topic),
                Partitioning.partitionId((long) partition), messages);
    }

    /** Sends {@code count} UTF-8 JSON documents {@code json.apply(0..count-1)} in batches of {@link #JSON_BATCH}. */
    public void sendJson(String stream, String topic, int partition, int count, IntFunction<String> json) {
        List<byte[]> batch = new ArrayList<>(Math.min(count, JSON_BATCH));
        for (int i = 0; i < count; i++) {
            batch.add(json.apply(i).getBytes(StandardCharsets.UTF_8));
            if (batch.size() == JSON_BATCH) {
                send(stream, topic, partition, batch);
                batch.clear();
            }
        }
        if (!batch.isEmpty()) {
            send(stream, topic, partition, batch);
        }
    }

    /** Deletes the stream with everything in it; a stream that is already gone is fine. */
    public void deleteStream(String stream) {
        try {
            client.streams().deleteStream(StreamId.of(stream));
        } catch (IggyServerException e) {
            if (e.getRawErrorCode() != STREAM_NOT_FOUND) {
                throw e;
            }
        }
    }

    @Override
    public void close() {
        client.close();
    }

    /** A message the server will give an id, offset and timestamp; the size fields must match what is written. */
    static Message message(byte[] payload, Map<HeaderKey, HeaderValue> headers) {
        long headersLength = 0;
        for (Map.Entry<HeaderKey, HeaderValue> e : headers.entrySet()) {
            headersLength += 1 + 4 + e.getKey().value().length + 1 + 4 + e.getValue().value().length;
        }
        MessageHeader header = new MessageHeader(BigInteger.ZERO, MessageId.serverGenerated(), BigInteger.ZERO,
                BigInteger.ZERO, BigInteger.ZERO, headersLength, (long) payload.length, BigInteger.ZERO);
        return new Message(header, payload, headers);
    }
}
