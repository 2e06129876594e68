package dev.iggysink.adapters.iggy;

import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.MessageSourceContract;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.testkit.iggy.IggyEndpoint;
import dev.iggysink.testkit.iggy.IggyProducer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The contract against {@link IggyMessageSource} on the in-JVM broker, or on the server named by
 * {@code IGGY_TCP_ADDRESS}. Every test gets its own stream (deleted afterwards), so runs against a shared server do
 * not see each other.
 */
class IggyMessageSourceContractIT extends MessageSourceContract {
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);
    private static final AtomicInteger NAMES = new AtomicInteger();
    private static IggyEndpoint endpoint;
    private static IggyProducer producer;

    @BeforeAll
    static void startBroker() {
        endpoint = IggyEndpoint.fromEnvOrEmbedded();
        producer = IggyProducer.connect(endpoint.host(), endpoint.port());
    }

    @AfterAll
    static void stopBroker() {
        producer.close();
        endpoint.close();
    }

    @Override
    protected Topic createTopic(int partitions) {
        String stream = "contract-" + ProcessHandle.current().pid() + "-" + System.nanoTime() % 1_000_000 + "-"
                + NAMES.incrementAndGet();
        String topic = "events";
        String group = "contract-group";
        producer.createStreamIfMissing(stream);
        producer.createTopicIfMissing(stream, topic, partitions);
        IggySettings settings = new IggySettings(endpoint.host(), endpoint.port(), "iggy", Secret.of("iggy"),
                Optional.empty(), false, Optional.empty(), Optional.empty());
        return new Topic() {
            private final List<IggyMessageSource> members = new ArrayList<>();

            @Override
            public PartitionRef partition(int id) {
                return new PartitionRef(stream, topic, id);
            }

            @Override
            public void produce(int partition, List<byte[]> payloads) {
                producer.send(stream, topic, partition, payloads);
            }

            @Override
            public MessageSource newMember() throws Exception {
                IggyMessageSource member = new IggyMessageSource(settings, stream, topic, group, CALL_TIMEOUT);
                members.add(member);
                member.connect();
                return member;
            }

            @Override
            public void delete() {
                producer.client().topics().deleteTopic(StreamId.of(stream), TopicId.of(topic));
            }

            @Override
            public void createAgain() {
                producer.createTopicIfMissing(stream, topic, partitions);
            }

            @Override
            public void close() {
                members.forEach(IggyMessageSource::close);
                producer.deleteStream(stream);
            }
        };
    }
}
