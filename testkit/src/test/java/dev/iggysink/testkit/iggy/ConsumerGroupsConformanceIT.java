package dev.iggysink.testkit.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.apache.iggy.client.blocking.tcp.IggyTcpClient;
import org.apache.iggy.consumergroup.Consumer;
import org.apache.iggy.consumergroup.ConsumerGroupDetails;
import org.apache.iggy.consumergroup.ConsumerGroupMember;
import org.apache.iggy.identifier.ConsumerId;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.message.Message;
import org.apache.iggy.message.Partitioning;
import org.apache.iggy.message.PolledMessages;
import org.apache.iggy.message.PollingStrategy;
import org.apache.iggy.topic.CompressionAlgorithm;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Consumer groups: CRUD, membership per connection, partition resolution, group offsets and the 0.8 server's
 * rebalancing (a join moves at most one partition per idle member, pending revocations, a leave rebalances fully;
 * see docs/adr/0003-explicit-offset-consumer.md). Group calls always use {@code Consumer.group(...)}: the client's Long-id
 * overloads build a single consumer.
 *
 * <p>The auto-commit poll on a partition pending revocation runs last: on a real 0.8 server such a poll can deadlock
 * the server (docs/adr/0003-explicit-offset-consumer.md), and every case after it would then hang too.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConsumerGroupsConformanceIT extends ConformanceSupport {

    private static final ConsumerId GROUP = ConsumerId.of("g");
    private static final Consumer AS_GROUP = Consumer.group(GROUP);
    private final TopicId topicId = TopicId.of("t");

    private StreamId topicWith(int partitions, int messagesPerPartition) {
        StreamId streamId = StreamId.of(stream);
        admin.topics().createTopic(streamId, (long) partitions, CompressionAlgorithm.None, BigInteger.ZERO,
                BigInteger.ZERO, Optional.empty(), "t");
        for (long p = 0; p < partitions && messagesPerPartition > 0; p++) {
            List<Message> batch = new ArrayList<>();
            for (int i = 0; i < messagesPerPartition; i++) {
                batch.add(IggyProducer.message(("p" + p + "-" + i).getBytes(StandardCharsets.UTF_8), Map.of()));
            }
            admin.messages().sendMessages(streamId, topicId, Partitioning.partitionId(p), batch);
        }
        admin.consumerGroups().createConsumerGroup(streamId, topicId, "g");
        return streamId;
    }

    private IggyTcpClient member() {
        IggyTcpClient c = client();
        c.consumerGroups().joinConsumerGroup(StreamId.of(stream), topicId, GROUP);
        return c;
    }

    private Map<Long, List<Long>> assignment() {
        ConsumerGroupDetails details = admin.consumerGroups()
                .getConsumerGroup(StreamId.of(stream), topicId, GROUP).orElseThrow();
        Map<Long, List<Long>> out = new LinkedHashMap<>();
        for (ConsumerGroupMember m : details.members()) {
            out.put(m.id(), m.partitions());
        }
        return out;
    }

    private PolledMessages poll(IggyTcpClient c, Optional<Long> partition, long count, boolean autoCommit) {
        return c.messages().pollMessages(StreamId.of(stream), topicId, partition, AS_GROUP,
                PollingStrategy.next(), count, autoCommit);
    }

    private void store(IggyTcpClient c, Optional<Long> partition, long offset) {
        c.consumerOffsets().storeConsumerOffset(StreamId.of(stream), topicId, partition, AS_GROUP,
                BigInteger.valueOf(offset));
    }

    private Optional<BigInteger> storedOffset(long partition) {
        return admin.consumerOffsets().getConsumerOffset(StreamId.of(stream), topicId, Optional.of(partition),
                AS_GROUP).map(o -> o.storedOffset());
    }

    @Test
    void create_get_and_delete_by_name_and_numeric_id() {
        StreamId streamId = topicWith(3, 0);
        ConsumerGroupDetails byName = admin.consumerGroups().getConsumerGroup(streamId, topicId, GROUP).orElseThrow();
        ConsumerGroupDetails created = admin.consumerGroups().createConsumerGroup(streamId, topicId, "second");

        assertThat(byName.name()).isEqualTo("g");
        assertThat(byName.partitionsCount()).isEqualTo(3);
        assertThat(byName.membersCount()).isZero();
        assertThat(created.membersCount()).isZero();
        assertThat(admin.consumerGroups().getConsumerGroup(streamId, topicId, ConsumerId.of(created.id()))
                .orElseThrow().name()).isEqualTo("second");

        admin.consumerGroups().deleteConsumerGroup(streamId, topicId, ConsumerId.of("second"));

        assertThat(admin.consumerGroups().getConsumerGroup(streamId, topicId, ConsumerId.of("second"))).isEmpty();
        assertThat(admin.consumerGroups().getConsumerGroup(streamId, TopicId.of("missing"), GROUP)).isEmpty();
    }

    @Test
    void group_errors() {
        StreamId streamId = topicWith(1, 1);
        ConsumerId missing = ConsumerId.of("missing");

        assertIggyError(() -> admin.consumerGroups().createConsumerGroup(streamId, topicId, "g"), 5004);
        assertIggyError(() -> admin.consumerGroups().deleteConsumerGroup(streamId, topicId, missing), 5000);
        assertIggyError(() -> admin.consumerGroups().joinConsumerGroup(streamId, topicId, missing), 5000);
        assertIggyError(() -> admin.consumerGroups().leaveConsumerGroup(streamId, topicId, GROUP), 5006);
        assertIggyError(() -> poll(admin, Optional.empty(), 1, false), 5006);
        assertIggyError(() -> admin.messages().pollMessages(streamId, topicId, Optional.empty(),
                Consumer.group(missing), PollingStrategy.next(), 1L, false), 5000);
        assertIggyError(() -> store(admin, Optional.of(0L), 0), 5006);
    }

    @Test
    void joining_is_idempotent_and_the_first_member_owns_everything() {
        topicWith(3, 0);
        IggyTcpClient a = member();
        a.consumerGroups().joinConsumerGroup(StreamId.of(stream), topicId, GROUP);

        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L, 1L, 2L)));
    }

    @Test
    void rebalance_walk_through_a_alone_then_b_joins_then_c_joins_then_b_leaves() {
        topicWith(3, 0);
        IggyTcpClient a = member();
        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L, 1L, 2L)));

        IggyTcpClient b = member();
        // The end of A's list moves; a full round-robin would have given A {0,2}.
        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L, 1L)), Map.entry(1L, List.of(2L)));

        member();
        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L)), Map.entry(1L, List.of(2L)),
                Map.entry(2L, List.of(1L)));

        b.consumerGroups().leaveConsumerGroup(StreamId.of(stream), topicId, GROUP);
        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L, 2L)), Map.entry(2L, List.of(1L)));
        assertThat(a.system().getMe().consumerGroupsCount()).isEqualTo(1);
        assertThat(b.system().getMe().consumerGroupsCount()).isZero();
    }

    @Test
    void a_join_moves_at_most_one_partition_per_idle_member() {
        topicWith(4, 0);
        member();
        member();

        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L, 1L, 2L)), Map.entry(1L, List.of(3L)));
    }

    @Test
    void a_polled_partition_stays_with_its_owner_until_the_owner_commits_what_it_polled() {
        topicWith(3, 5);
        IggyTcpClient a = member();
        PolledMessages fromTwo = poll(a, Optional.of(2L), 3, false);
        assertThat(fromTwo.partitionId()).isEqualTo(2L);
        assertThat(fromTwo.messages()).hasSize(3);

        IggyTcpClient b = member();

        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L, 1L, 2L)), Map.entry(1L, List.of()));
        PolledMessages bPoll = poll(b, Optional.empty(), 10, false);
        assertThat(bPoll.messages()).isEmpty();
        assertThat(bPoll.partitionId()).isZero();
        assertThat(poll(b, Optional.of(2L), 10, false).messages()).isEmpty();
        assertIggyError(() -> store(b, Optional.of(2L), 0), 3022);
        // A's round-robin skips the partition being revoked; explicit polls still reach it.
        assertThat(IntStream.range(0, 4).mapToObj(i -> poll(a, Optional.empty(), 1, false).partitionId()))
                .containsOnly(0L, 1L);

        store(a, Optional.of(2L), 1);
        assertThat(assignment()).containsEntry(1L, List.of());
        store(a, Optional.of(2L), 2);

        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L, 1L)), Map.entry(1L, List.of(2L)));
        PolledMessages resumed = poll(b, Optional.of(2L), 10, false);
        assertThat(resumed.messages()).extracting(m -> m.header().offset()).containsExactly(BigInteger.valueOf(3),
                BigInteger.valueOf(4));
    }

    // Unannotated cases come first (their default order is Integer.MAX_VALUE / 2). The timeout guards against the
    // deadlock only; it measures nothing.
    @Test
    @Order(Integer.MAX_VALUE)
    @Timeout(120)
    void an_auto_commit_poll_by_the_holder_completes_the_move() {
        topicWith(2, 3);
        IggyTcpClient a = member();
        poll(a, Optional.of(1L), 1, false);
        member();
        assertThat(assignment()).containsEntry(1L, List.of());

        poll(a, Optional.of(1L), 1, true);

        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L)), Map.entry(1L, List.of(1L)));
    }

    @Test
    void round_robin_polls_cycle_over_owned_partitions_and_a_store_without_partition_targets_the_next_one() {
        topicWith(3, 2);
        IggyTcpClient a = member();

        List<Long> cycle = IntStream.range(0, 4).mapToObj(i -> poll(a, Optional.empty(), 1, false).partitionId())
                .toList();
        assertThat(cycle.subList(0, 3)).containsExactlyInAnyOrder(0L, 1L, 2L);
        assertThat(cycle.get(3)).isEqualTo(cycle.get(0));

        store(a, Optional.empty(), 1);
        long next = poll(a, Optional.empty(), 1, false).partitionId();
        assertThat(storedOffset(next)).contains(BigInteger.ONE);
        assertThat(IntStream.range(0, 3).filter(p -> p != next).mapToObj(p -> storedOffset(p)))
                .allMatch(Optional::isEmpty);
    }

    @Test
    void a_fresh_group_reads_from_the_beginning_and_offsets_survive_leaving() {
        topicWith(1, 4);
        IggyTcpClient a = member();

        PolledMessages first = poll(a, Optional.empty(), 2, true);
        a.consumerGroups().leaveConsumerGroup(StreamId.of(stream), topicId, GROUP);

        assertThat(first.messages()).extracting(m -> m.header().offset()).containsExactly(BigInteger.ZERO,
                BigInteger.ONE);
        assertThat(storedOffset(0)).contains(BigInteger.ONE);
        IggyTcpClient again = member();
        assertThat(poll(again, Optional.empty(), 10, false).messages()).extracting(m -> m.header().offset())
                .containsExactly(BigInteger.TWO, BigInteger.valueOf(3));
    }

    @Test
    void group_offsets_follow_the_store_rules() {
        topicWith(2, 3);
        IggyTcpClient a = member();

        assertIggyError(() -> store(a, Optional.of(0L), 3), 4100);
        assertIggyError(() -> store(a, Optional.of(5L), 0), 3022);
        store(a, Optional.of(0L), 2);
        store(a, Optional.of(0L), 0);

        assertThat(storedOffset(0)).contains(BigInteger.ZERO);
        assertThat(storedOffset(1)).isEmpty();
        assertThat(admin.consumerOffsets().getConsumerOffset(StreamId.of(stream), topicId, Optional.of(0L),
                Consumer.group(ConsumerId.of("missing")))).isEmpty();
    }

    @Test
    void a_disconnected_member_leaves_with_a_full_rebalance() {
        topicWith(3, 0);
        member();
        IggyTcpClient b = member();
        assertThat(assignment()).hasSize(2);

        b.close();

        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L, 1L, 2L))));
    }

    @Test
    void a_member_that_owns_nothing_gets_an_empty_poll() {
        topicWith(1, 3);
        member();
        IggyTcpClient idle = member();

        PolledMessages polled = poll(idle, Optional.empty(), 10, false);

        assertThat(assignment()).containsExactly(Map.entry(0L, List.of(0L)), Map.entry(1L, List.of()));
        assertThat(polled.messages()).isEmpty();
        assertThat(polled.partitionId()).isZero();
        assertThat(polled.currentOffset()).isEqualTo(BigInteger.ZERO);
    }
}
