package dev.iggysink.application.port.out;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.assertj.core.api.Assertions.entry;

import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * What the pipeline relies on from every {@link MessageSource}: run against the scripted fake, the real adapter on
 * the in-JVM broker and the real adapter on a real Iggy server, so the fake cannot drift from the real thing.
 *
 * <p>Each test creates its own topic through {@link #createTopic}; the fixture closes its members and removes the
 * topic afterwards. Cases about several members of one group run last: on a real server they leave the group in a
 * state (assignment moves pending) no later case should inherit, even though each case has its own topic.
 *
 * <p>The timeout only guards against a hang; no case measures time.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(120)
public abstract class MessageSourceContract {

    /** One topic of one stream created for one test, and the consumer group its members join. */
    protected interface Topic {
        PartitionRef partition(int id);

        /** Appends the payloads to the partition, in order, as a producer would. */
        void produce(int partition, List<byte[]> payloads) throws Exception;

        /** A new member of the test's consumer group, connected (joined). */
        MessageSource newMember() throws Exception;

        /** Deletes the topic (its records, its consumer group and the group's offsets), as an operator would. */
        void delete() throws Exception;

        /** Creates the deleted topic again under its name, with as many partitions as before, empty. */
        void createAgain() throws Exception;

        /** Closes every member it opened and removes the topic. */
        void close() throws Exception;
    }

    /** Creates a topic with {@code partitions} partitions (ids 0..partitions-1), empty, with no stored offsets. */
    protected abstract Topic createTopic(int partitions) throws Exception;

    private Topic topic;

    private Topic topic(int partitions) throws Exception {
        topic = createTopic(partitions);
        return topic;
    }

    @AfterEach
    void removeTopic() throws Exception {
        if (topic != null) topic.close();
    }

    protected static byte[] payload(int partition, int i) {
        return ("{\"p\":" + partition + ",\"i\":" + i + "}").getBytes(StandardCharsets.UTF_8);
    }

    /** Payloads {@code payload(partition, 0..count-1)}, every fourth one binary (not UTF-8) to show bytes are kept. */
    protected static List<byte[]> payloads(int partition, int count) {
        List<byte[]> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(i % 4 == 3 ? new byte[] {(byte) 0xff, 0, (byte) 0xfe, (byte) partition, (byte) i}
                    : payload(partition, i));
        }
        return out;
    }

    // ---- partitions and offsets ------------------------------------------------------------------------------

    @Test
    @Order(1)
    void partitions_are_listed_with_ids_0_to_n_minus_1_whether_they_hold_records_or_not() throws Exception {
        Topic t = topic(3);
        t.produce(1, payloads(1, 2));
        MessageSource member = t.newMember();

        assertThat(member.partitions()).containsExactly(t.partition(0), t.partition(1), t.partition(2));
    }

    @Test
    @Order(2)
    void a_fresh_group_has_no_committed_offset_so_the_pipeline_starts_at_offset_0() throws Exception {
        Topic t = topic(2);
        t.produce(0, payloads(0, 3));
        MessageSource member = t.newMember();

        assertThat(member.committedOffset(t.partition(0))).isEmpty();
        assertThat(member.committedOffset(t.partition(1))).isEmpty();
    }

    @Test
    @Order(3)
    void end_offsets_are_each_partitions_highest_offset_minus_1_when_empty_and_follow_what_is_produced()
            throws Exception {
        Topic t = topic(3);
        t.produce(1, payloads(1, 1));
        t.produce(2, payloads(2, 7));
        MessageSource member = t.newMember();

        assertThat(member.endOffsets()).containsOnly(entry(t.partition(0), -1L), entry(t.partition(1), 0L),
                entry(t.partition(2), 6L));
        t.produce(2, payloads(2, 3));
        assertThat(member.endOffsets()).containsEntry(t.partition(2), 9L);
        assertThat(member.committedOffset(t.partition(2))).as("reading the ends moves no offset").isEmpty();
    }

    // ---- polling ---------------------------------------------------------------------------------------------

    @Test
    @Order(10)
    void a_poll_returns_records_in_offset_order_starting_exactly_at_the_asked_offset_and_at_most_max_records()
            throws Exception {
        Topic t = topic(2);
        t.produce(1, payloads(1, 10));
        MessageSource member = t.newMember();

        Batch batch = member.poll(t.partition(1), 3, 4);

        assertThat(batch.owned()).isTrue();
        assertThat(batch.partition()).isEqualTo(t.partition(1));
        assertThat(batch.currentOffset()).as("the highest offset stored in the partition").isEqualTo(9);
        assertThat(batch.records()).isNotEmpty().hasSizeLessThanOrEqualTo(4);
        assertConsecutiveFrom(batch, t.partition(1), 3, payloads(1, 10));
    }

    /** The batch's records are {@code partition}'s from offset {@code first} on, one after the other, intact. */
    private static void assertConsecutiveFrom(Batch batch, PartitionRef partition, long first, List<byte[]> sent) {
        long expected = first;
        for (SinkRecord r : batch.records()) {
            assertThat(r.offset()).isEqualTo(expected);
            assertThat(r.partition()).isEqualTo(partition);
            assertThat(r.payload()).isEqualTo(sent.get((int) expected));
            expected++;
        }
    }

    @Test
    @Order(11)
    void polling_on_from_each_next_offset_yields_every_record_once_with_its_payload_intact() throws Exception {
        Topic t = topic(1);
        List<byte[]> sent = payloads(0, 25);
        t.produce(0, sent.subList(0, 10));
        t.produce(0, sent.subList(10, 25));
        MessageSource member = t.newMember();

        List<SinkRecord> read = new ArrayList<>();
        long next = 0;
        while (next < 25) {
            Batch b = member.poll(t.partition(0), next, 7);
            assertThat(b.owned()).isTrue();
            assertThat(b.records()).as("records from %d", next).isNotEmpty().hasSizeLessThanOrEqualTo(7);
            assertThat(b.records().get(0).offset()).isEqualTo(next);
            read.addAll(b.records());
            next = b.records().get(b.records().size() - 1).offset() + 1;
        }

        assertThat(read).extracting(SinkRecord::offset).containsExactlyElementsOf(
                java.util.stream.LongStream.range(0, 25).boxed().toList());
        for (int i = 0; i < 25; i++) {
            assertThat(read.get(i).payload()).as("payload of offset %d", i).isEqualTo(sent.get(i));
        }
    }

    @Test
    @Order(12)
    void a_poll_at_or_past_the_end_is_an_owned_empty_batch_telling_the_highest_stored_offset() throws Exception {
        Topic t = topic(3);
        // Partition 0 empty (on the wire an empty partition 0 looks like one not owned), 1 with a single record
        // (current offset 0 looks like "empty"), 2 with five records.
        t.produce(1, payloads(1, 1));
        t.produce(2, payloads(2, 5));
        MessageSource member = t.newMember();

        assertEmptyOwned(member.poll(t.partition(0), 0, 10), -1);
        assertEmptyOwned(member.poll(t.partition(1), 1, 10), 0);
        assertEmptyOwned(member.poll(t.partition(2), 5, 10), 4);
        assertEmptyOwned(member.poll(t.partition(2), 50, 10), 4);
        assertEmptyOwned(member.poll(t.partition(1), 7, 10), 0);
    }

    private static void assertEmptyOwned(Batch b, long currentOffset) {
        assertThat(b.owned()).as("owned %s", b).isTrue();
        assertThat(b.records()).as("records %s", b).isEmpty();
        assertThat(b.currentOffset()).as("current offset %s", b).isEqualTo(currentOffset);
    }

    @Test
    @Order(13)
    void polling_never_moves_the_group_offset() throws Exception {
        Topic t = topic(1);
        t.produce(0, payloads(0, 6));
        MessageSource member = t.newMember();
        member.commit(t.partition(0), 1);

        member.poll(t.partition(0), 0, 100);
        member.poll(t.partition(0), 4, 100);
        member.poll(t.partition(0), 6, 100);

        assertThat(member.committedOffset(t.partition(0))).isEqualTo(OptionalLong.of(1));
    }

    @Test
    @Order(14)
    void bad_arguments_are_programming_errors_not_source_failures() throws Exception {
        Topic t = topic(1);
        t.produce(0, payloads(0, 2));
        MessageSource member = t.newMember();
        PartitionRef p = t.partition(0);
        PartitionRef foreign = new PartitionRef(p.stream() + "-other", p.topic(), 0);

        assertThatThrownBy(() -> member.poll(p, -1, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> member.poll(p, 0, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> member.poll(foreign, 0, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> member.commit(p, -1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> member.commit(foreign, 0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> member.committedOffset(foreign)).isInstanceOf(IllegalArgumentException.class);
        assertThat(member.committedOffset(p)).isEmpty();
    }

    @Test
    @Order(15)
    void a_poll_started_ahead_answers_as_a_poll_even_when_other_calls_came_before_its_answer_was_read()
            throws Exception {
        Topic t = topic(2);
        t.produce(0, payloads(0, 5));
        t.produce(1, payloads(1, 10));
        MessageSource member = t.newMember();

        MessageSource.PendingPoll pending = member.startPoll(t.partition(1), 3, 4);
        // Calls made before the answer is read go through, and none of them takes that answer.
        Batch other = member.poll(t.partition(0), 0, 10);
        OptionalLong committed = member.committedOffset(t.partition(1));
        member.commit(t.partition(0), other.records().get(other.records().size() - 1).offset());
        Batch started = pending != null ? pending.await() : member.poll(t.partition(1), 3, 4);

        assertThat(pending).as("this source starts polls without waiting").isNotNull();
        assertThat(committed).isEmpty();
        assertThat(other.records()).isNotEmpty();
        assertConsecutiveFrom(other, t.partition(0), 0, payloads(0, 5));
        assertThat(started.owned()).isTrue();
        assertThat(started.partition()).isEqualTo(t.partition(1));
        assertThat(started.currentOffset()).isEqualTo(9);
        assertThat(started.sessionEpoch()).isEqualTo(member.sessionEpoch());
        assertThat(started.records()).isNotEmpty().hasSizeLessThanOrEqualTo(4);
        assertConsecutiveFrom(started, t.partition(1), 3, payloads(1, 10));
        assertThat(member.committedOffset(t.partition(0))).hasValue(other.records().size() - 1L);
    }

    // ---- commits ---------------------------------------------------------------------------------------------

    @Test
    @Order(20)
    void a_commit_is_read_back_and_a_restarted_member_resumes_right_after_it() throws Exception {
        Topic t = topic(2);
        t.produce(0, payloads(0, 10));
        t.produce(1, payloads(1, 3));
        MessageSource first = t.newMember();
        first.commit(t.partition(0), 4);

        assertThat(first.committedOffset(t.partition(0))).isEqualTo(OptionalLong.of(4));
        assertThat(first.committedOffset(t.partition(1))).as("other partitions keep theirs").isEmpty();
        first.close();

        MessageSource restarted = t.newMember();
        assertThat(restarted.committedOffset(t.partition(0))).isEqualTo(OptionalLong.of(4));
        assertThat(restarted.committedOffset(t.partition(1))).isEmpty();
        Batch resumed = restarted.poll(t.partition(0), 5, 100);
        assertThat(resumed.owned()).isTrue();
        assertThat(resumed.records()).isNotEmpty();
        assertThat(resumed.records().get(0).offset()).isEqualTo(5);
        assertThat(resumed.records().get(0).payload()).isEqualTo(payloads(0, 10).get(5));
    }

    @Test
    @Order(21)
    void a_commit_of_the_last_stored_offset_is_accepted() throws Exception {
        Topic t = topic(1);
        t.produce(0, payloads(0, 3));
        MessageSource member = t.newMember();

        member.commit(t.partition(0), 2);

        assertThat(member.committedOffset(t.partition(0))).isEqualTo(OptionalLong.of(2));
    }

    @Test
    @Order(22)
    void a_commit_past_the_last_stored_offset_is_refused_for_good_and_stores_nothing() throws Exception {
        Topic t = topic(1);
        t.produce(0, payloads(0, 3));
        MessageSource member = t.newMember();

        SourceException e = catchThrowableOfType(SourceException.class, () -> member.commit(t.partition(0), 3));

        assertThat(e).as("a commit of offset 3 when 0..2 are stored").isNotNull();
        assertThat(e).isNotInstanceOf(PartitionRevokedException.class);
        assertThat(e.retryable()).as(e.getMessage()).isFalse();
        assertThat(member.committedOffset(t.partition(0))).isEmpty();
    }

    @Test
    @Order(23)
    void within_one_member_a_commit_not_larger_than_its_last_does_not_lower_the_stored_offset() throws Exception {
        Topic t = topic(1);
        t.produce(0, payloads(0, 10));
        MessageSource member = t.newMember();
        member.commit(t.partition(0), 7);

        member.commit(t.partition(0), 3);
        assertThat(member.committedOffset(t.partition(0))).isEqualTo(OptionalLong.of(7));
        member.commit(t.partition(0), 7);
        assertThat(member.committedOffset(t.partition(0))).isEqualTo(OptionalLong.of(7));

        member.commit(t.partition(0), 8);
        assertThat(member.committedOffset(t.partition(0))).isEqualTo(OptionalLong.of(8));
    }

    /**
     * The server keeps no floor: a member that never committed the partition replaces the group's offset even with
     * a smaller one. That is why the pipeline reads the committed offset whenever ownership arrives.
     */
    @Test
    @Order(24)
    void a_member_that_did_not_commit_before_replaces_the_stored_offset_even_with_a_smaller_one() throws Exception {
        Topic t = topic(1);
        t.produce(0, payloads(0, 10));
        MessageSource first = t.newMember();
        first.commit(t.partition(0), 7);
        first.close();

        MessageSource second = t.newMember();
        second.commit(t.partition(0), 3);

        assertThat(second.committedOffset(t.partition(0))).isEqualTo(OptionalLong.of(3));
    }

    // ---- session and ownership -------------------------------------------------------------------------------

    @Test
    @Order(30)
    void the_session_epoch_stays_the_same_while_nothing_fails_and_every_batch_carries_it() throws Exception {
        Topic t = topic(2);
        t.produce(0, payloads(0, 5));
        MessageSource member = t.newMember();
        long epoch = member.sessionEpoch();

        member.connect();
        member.partitions();
        member.committedOffset(t.partition(0));
        Batch full = member.poll(t.partition(0), 0, 10);
        Batch empty = member.poll(t.partition(1), 0, 10);
        member.commit(t.partition(0), 4);
        member.commit(t.partition(0), 2);

        assertThat(full.sessionEpoch()).isEqualTo(epoch);
        assertThat(empty.sessionEpoch()).isEqualTo(epoch);
        assertThat(member.sessionEpoch()).isEqualTo(epoch);
    }

    @Test
    @Order(31)
    void a_member_alone_in_its_group_owns_every_partition_empty_or_not() throws Exception {
        Topic t = topic(4);
        t.produce(1, payloads(1, 2));
        t.produce(3, payloads(3, 1));
        MessageSource member = t.newMember();

        for (PartitionRef p : member.partitions()) {
            assertThat(member.poll(p, 0, 10).owned()).as("owned %s", p).isTrue();
        }
        member.commit(t.partition(1), 1);
        member.commit(t.partition(3), 0);
        assertThat(member.committedOffset(t.partition(1))).isEqualTo(OptionalLong.of(1));
        assertThat(member.committedOffset(t.partition(3))).isEqualTo(OptionalLong.of(0));
    }

    /**
     * A topic deleted while a member reads it: a poll and the partition list fail as missing (not as a failure to
     * retry nor as any other refusal), so the caller can halt that topic alone ({@code connect} of a member already
     * connected may well answer without asking); once the topic is created again the same member reads it, from
     * offset 0 with no stored offset.
     */
    @Test
    @Order(33)
    void a_deleted_topic_fails_as_missing_and_the_same_member_reads_it_once_it_is_created_again() throws Exception {
        Topic t = topic(2);
        t.produce(0, payloads(0, 3));
        MessageSource member = t.newMember();
        assertThat(member.poll(t.partition(0), 0, 10).records()).hasSize(3);
        member.commit(t.partition(0), 2);

        t.delete();

        eventuallyMissing("poll", () -> member.poll(t.partition(0), 3, 10));
        eventuallyMissing("partitions", member::partitions);

        t.createAgain();
        t.produce(1, payloads(1, 2));
        // A source may wait a moment before it builds a session again after failures: retryable answers meanwhile.
        Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptionsMatching(
                e -> e instanceof SourceException se && se.retryable()).until(() -> {
                    member.connect();
                    return true;
                });
        assertThat(member.partitions()).containsExactly(t.partition(0), t.partition(1));
        assertThat(member.committedOffset(t.partition(0))).as("the group's offsets went with the topic").isEmpty();
        Batch batch = Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptionsMatching(
                e -> e instanceof SourceException se && se.retryable())
                .until(() -> member.poll(t.partition(1), 0, 10), b -> b.owned());
        assertThat(batch.records()).extracting(SinkRecord::offset).containsExactly(0L, 1L);
    }

    /** The call fails as missing; retryable failures before that (a session being built again) are allowed. */
    private static void eventuallyMissing(String what, org.assertj.core.api.ThrowableAssert.ThrowingCallable call) {
        Awaitility.await(what).atMost(Duration.ofSeconds(30)).until(() -> {
            Throwable thrown = org.assertj.core.api.Assertions.catchThrowable(call);
            if (thrown instanceof TopicMissingException) return true;
            if (thrown instanceof SourceException e && e.retryable()) return false;
            throw new AssertionError(what + " of a deleted topic answered " + thrown, thrown);
        });
    }

    @Test
    @Order(32)
    void closing_twice_is_harmless() throws Exception {
        Topic t = topic(1);
        MessageSource member = t.newMember();

        member.close();
        member.close();
    }

    /**
     * Two members that joined before either polled: each partition has exactly one owner, the other member is told
     * "not owned" and its commit is refused as revoked; when one leaves, the other owns everything. (On Iggy 0.8 a
     * partition its owner has polled moves only once the owner commits what it polled; no poll happens here before
     * the second member joins, so this holds on a real server too.)
     */
    @Test
    @Order(100)
    void two_members_own_disjoint_shares_a_non_owner_commit_is_revoked_and_a_leaver_hands_over() throws Exception {
        Topic t = topic(3);
        for (int p = 0; p < 3; p++) t.produce(p, payloads(p, 2));
        MessageSource a = t.newMember();
        MessageSource b = t.newMember();

        Set<Integer> ownedByA = owned(a);
        Set<Integer> ownedByB = owned(b);
        assertThat(ownedByA).isNotEmpty();
        assertThat(ownedByB).as("the joining member gets a share").isNotEmpty();
        assertThat(ownedByA).doesNotContainAnyElementsOf(ownedByB);
        Set<Integer> all = new HashSet<>(ownedByA);
        all.addAll(ownedByB);
        assertThat(all).containsExactlyInAnyOrder(0, 1, 2);

        int notB = ownedByA.iterator().next();
        a.commit(t.partition(notB), 0);
        SourceException refused = catchThrowableOfType(SourceException.class, () -> b.commit(t.partition(notB), 1));
        assertThat(refused).isInstanceOf(PartitionRevokedException.class);
        assertThat(refused.retryable()).isFalse();
        assertThat(((PartitionRevokedException) refused).partition()).isEqualTo(t.partition(notB));
        assertThat(b.committedOffset(t.partition(notB)))
                .as("read without owning the partition; the refused commit stored nothing")
                .isEqualTo(OptionalLong.of(0));

        a.close();
        Awaitility.await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50))
                .untilAsserted(() -> assertThat(owned(b)).containsExactlyInAnyOrder(0, 1, 2));
        b.commit(t.partition(notB), 1);
        assertThat(b.committedOffset(t.partition(notB))).as("the new owner's commit is stored")
                .isEqualTo(OptionalLong.of(1));
    }

    /**
     * A partition its owner has polled moves to a joining member only once the owner has committed what it polled
     * (Iggy 0.8 keeps the move pending until then): meanwhile the owner keeps polling and committing it and the
     * newcomer is told "not owned"; afterwards the roles swap. Polls at the end are used to ask about ownership,
     * because a poll that returns records changes what "what it polled" means.
     */
    @Test
    @Order(101)
    void a_partition_the_owner_has_polled_moves_to_a_joining_member_once_the_owner_commits_what_it_polled()
            throws Exception {
        Topic t = topic(2);
        t.produce(0, payloads(0, 5));
        t.produce(1, payloads(1, 5));
        MessageSource a = t.newMember();
        List<SinkRecord> polled = a.poll(t.partition(1), 0, 3).records();
        assertThat(polled).isNotEmpty();
        long lastPolled = polled.get(polled.size() - 1).offset();
        MessageSource b = t.newMember();

        assertThat(a.poll(t.partition(1), 5, 10).owned()).as("the holder keeps the partition it polled").isTrue();
        assertThat(b.poll(t.partition(1), 0, 10).owned()).isFalse();
        assertThat(catchThrowableOfType(SourceException.class, () -> b.commit(t.partition(1), 0)))
                .isInstanceOf(PartitionRevokedException.class);
        if (lastPolled > 0) {
            a.commit(t.partition(1), lastPolled - 1);
            assertThat(a.poll(t.partition(1), 5, 10).owned()).as("committed less than polled").isTrue();
            assertThat(b.poll(t.partition(1), 0, 10).owned()).isFalse();
        }

        a.commit(t.partition(1), lastPolled);

        Batch moved = b.poll(t.partition(1), lastPolled + 1, 10);
        assertThat(moved.owned()).as("the move completed with the holder's commit").isTrue();
        assertThat(moved.records()).isNotEmpty();
        assertThat(moved.records().get(0).offset()).isEqualTo(lastPolled + 1);
        assertThat(a.poll(t.partition(1), 5, 10).owned()).isFalse();
        assertThat(catchThrowableOfType(SourceException.class, () -> a.commit(t.partition(1), 4)))
                .isInstanceOf(PartitionRevokedException.class);
        assertThat(b.committedOffset(t.partition(1))).isEqualTo(OptionalLong.of(lastPolled));
        assertThat(a.poll(t.partition(0), 0, 10).owned()).as("the holder keeps the rest").isTrue();
    }

    /** Partitions whose poll answers owned; a poll not owned carries no record and no offset. */
    private static Set<Integer> owned(MessageSource member) throws SourceException {
        Set<Integer> owned = new HashSet<>();
        for (PartitionRef p : member.partitions()) {
            Batch b = member.poll(p, 0, 1);
            if (b.owned()) {
                owned.add(p.partitionId());
                assertThat(b.records()).hasSize(1);
                assertThat(b.currentOffset()).isEqualTo(1);
            } else {
                assertThat(b.records()).isEmpty();
                assertThat(b.currentOffset()).isEqualTo(-1);
            }
        }
        return owned;
    }
}
