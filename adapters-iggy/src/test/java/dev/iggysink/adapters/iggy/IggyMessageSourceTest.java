package dev.iggysink.adapters.iggy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import dev.iggysink.application.port.out.Batch;
import dev.iggysink.application.port.out.MessageSource;
import dev.iggysink.application.port.out.PartitionRevokedException;
import dev.iggysink.application.port.out.SourceException;
import dev.iggysink.application.settings.Secret;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class IggyMessageSourceTest {
    private static final Duration TIMEOUT = Duration.ofMillis(200);
    private final FakeBroker broker = new FakeBroker("orders", "created", 3);
    private final AtomicLong clock = new AtomicLong();
    private final PartitionRef p0 = new PartitionRef("orders", "created", 0);
    private final PartitionRef p1 = new PartitionRef("orders", "created", 1);

    private IggyMessageSource source(IggySettings settings) {
        return source(settings, TIMEOUT);
    }

    private IggyMessageSource source(IggySettings settings, Duration callTimeout) {
        return new IggyMessageSource(settings, "orders", "created", "sink-group", callTimeout, broker.factory(),
                clock::get);
    }

    private IggyMessageSource source() {
        return source(settings(broker.password));
    }

    private static IggySettings settings(String password) {
        return new IggySettings("127.0.0.1", 8090, "sink", Secret.of(password), Optional.empty(), false,
                Optional.empty(), Optional.empty());
    }

    @Test
    void a_poll_answer_from_before_the_offset_asked_is_cut_there_and_one_from_it_on_is_taken_as_it_is() {
        java.util.List<SinkRecord> polled = java.util.List.of(record(5), record(6), record(7));

        assertThat(IggyMessageSource.atOrAfter(polled, 5)).isSameAs(polled);
        assertThat(IggyMessageSource.atOrAfter(polled, 3)).isSameAs(polled);
        assertThat(IggyMessageSource.atOrAfter(polled, 6)).extracting(SinkRecord::offset).containsExactly(6L, 7L);
        assertThat(IggyMessageSource.atOrAfter(polled, 8)).isEmpty();
    }

    private SinkRecord record(long offset) {
        return new SinkRecord(p0, offset, 1_700_000_000_000_000L + offset, 0,
                new dev.iggysink.domain.message.MessageId(0, offset + 1), java.util.List.of(), new byte[] {'{', '}'});
    }

    @Test
    void connect_creates_the_missing_group_and_joins_it() throws Exception {
        try (IggyMessageSource s = source()) {
            s.connect();
            s.connect();

            assertThat(broker.groupExists).isTrue();
            assertThat(broker.members).hasSize(1);
            assertThat(broker.connections).hasSize(1);
            assertThat(s.sessionEpoch()).isZero();
            assertThat(s.partitions()).containsExactly(p0, p1, new PartitionRef("orders", "created", 2));
        }
    }

    @Test
    void a_group_created_by_another_member_between_look_and_create_is_joined() throws Exception {
        broker.failNext("createGroup", 5004, () -> broker.groupExists = true);
        try (IggyMessageSource s = source()) {
            s.connect();
            assertThat(broker.members).hasSize(1);
            assertThat(s.sessionEpoch()).isZero();
        }
    }

    @Test
    void wrong_password_is_not_retryable_and_names_the_user_but_not_the_password() {
        IggyMessageSource s = source(settings("not-the-password"));
        SourceException e = catchThrowableOfType(SourceException.class, s::connect);

        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).contains("user 'sink'").contains("42").doesNotContain("not-the-password");
        assertThat(s.toString()).doesNotContain("not-the-password");
        assertThat(broker.connections.get(0).closed).isTrue();
    }

    @Test
    void a_token_is_used_instead_of_the_password_when_configured() throws Exception {
        broker.token = "tok-123";
        IggySettings withToken = new IggySettings("127.0.0.1", 8090, "sink", Secret.of("unused"),
                Optional.of(Secret.of("tok-123")), false, Optional.empty(), Optional.empty());
        try (IggyMessageSource s = source(withToken)) {
            s.connect();
            assertThat(broker.members).hasSize(1);
        }
        broker.token = "other";
        SourceException e = catchThrowableOfType(SourceException.class, () -> source(withToken).connect());
        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).contains("rejected the credentials of the personal access token (no such token")
                .contains("error 20").doesNotContain("tok-123");
    }

    @Test
    void a_missing_stream_or_topic_is_named_and_not_retryable() {
        broker.streamExists = false;
        SourceException e = catchThrowableOfType(SourceException.class, () -> source().connect());
        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).contains("stream 'orders'");

        broker.streamExists = true;
        broker.topicExists = false;
        e = catchThrowableOfType(SourceException.class, () -> source().connect());
        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).contains("topic 'created'").contains("stream 'orders'");
    }

    @Test
    void missing_permission_is_not_retryable() {
        broker.failNext("getStream", 41);
        SourceException e = catchThrowableOfType(SourceException.class, () -> source().connect());
        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).contains("not allowed").contains("user 'sink'");
    }

    @Test
    void an_unreachable_server_is_retryable_and_reconnects_only_after_the_backoff() throws Exception {
        broker.reachable = false;
        IggyMessageSource s = source();
        assertThat(catchThrowableOfType(SourceException.class, s::connect).retryable()).isTrue();
        assertThat(broker.connections).hasSize(1);

        broker.reachable = true;
        assertThat(catchThrowableOfType(SourceException.class, s::connect).getMessage()).contains("next attempt");
        assertThat(broker.connections).hasSize(1);

        clock.addAndGet(IggyMessageSource.FIRST_REBUILD_DELAY.toNanos());
        s.connect();
        assertThat(broker.connections).hasSize(2);
        s.close();
    }

    @Test
    void a_client_of_another_shape_stops_the_start_with_the_clients_message() {
        broker.connectFailure = new IggyClientShapeException("the Iggy client is not shaped as org.apache.iggy:iggy "
                + "0.8.0, which the sink's Netty handlers are written for: X has no field 'channelPool'");
        SourceException e = catchThrowableOfType(SourceException.class, () -> source().connect());
        assertThat(e.retryable()).as("no reconnect fixes a client version").isFalse();
        assertThat(e.getMessage()).contains("has no field 'channelPool'").contains("org.apache.iggy:iggy 0.8.0");
    }

    @Test
    void a_broken_tls_setup_is_not_retryable() {
        broker.connectFailure = new org.apache.iggy.exception.IggyTlsException("bad CA file");
        SourceException e = catchThrowableOfType(SourceException.class, () -> source().connect());
        assertThat(e.retryable()).isFalse();
        assertThat(e.getMessage()).contains("TLS");
    }

    @Test
    void backoff_doubles_up_to_its_cap() {
        assertThat(IggyMessageSource.backoffNanos(1)).isEqualTo(Duration.ofMillis(100).toNanos());
        assertThat(IggyMessageSource.backoffNanos(2)).isEqualTo(Duration.ofMillis(200).toNanos());
        assertThat(IggyMessageSource.backoffNanos(4)).isEqualTo(Duration.ofMillis(800).toNanos());
        assertThat(IggyMessageSource.backoffNanos(100)).isEqualTo(IggyMessageSource.MAX_REBUILD_DELAY.toNanos());
    }

    @Test
    void poll_returns_records_from_the_asked_offset_with_the_highest_offset() throws Exception {
        broker.append(1, "a", "b", "c", "d");
        try (IggyMessageSource s = source()) {
            Batch b = s.poll(p1, 1, 2);

            assertThat(b.owned()).isTrue();
            assertThat(b.currentOffset()).isEqualTo(3);
            assertThat(b.records()).extracting(SinkRecord::offset).containsExactly(1L, 2L);
            assertThat(new String(b.records().get(0).payload())).isEqualTo("b");

            Batch caughtUp = s.poll(p1, 4, 10);
            assertThat(caughtUp.owned()).isTrue();
            assertThat(caughtUp.records()).isEmpty();
            assertThat(caughtUp.currentOffset()).isEqualTo(3);
        }
    }

    @Test
    void an_empty_owned_partition_reports_minus_one_and_a_single_message_reports_zero() throws Exception {
        broker.append(2, "only");
        try (IggyMessageSource s = source()) {
            Batch empty = s.poll(p1, 0, 10);
            assertThat(empty.owned()).isTrue();
            assertThat(empty.currentOffset()).isEqualTo(-1);

            // current_offset 0 with nothing returned is ambiguous (0 or 1 message): the adapter resolves it
            Batch afterOnly = s.poll(new PartitionRef("orders", "created", 2), 1, 10);
            assertThat(afterOnly.owned()).isTrue();
            assertThat(afterOnly.currentOffset()).isZero();
        }
    }

    @Test
    void a_partition_owned_by_another_member_is_reported_not_owned() throws Exception {
        broker.append(0, "x");
        broker.append(1, "y");
        try (IggyMessageSource a = source(); IggyMessageSource b = source()) {
            a.connect();
            b.connect();
            broker.assign(broker.connections.get(1), 0, 1);

            Batch p1ForA = a.poll(p1, 0, 10);
            assertThat(p1ForA.owned()).isFalse();
            assertThat(p1ForA.records()).isEmpty();
            assertThat(p1ForA.currentOffset()).isEqualTo(-1);

            // partition 0 holding one message, polled past it: the 0/0/empty answer is settled by offset 0
            assertThat(a.poll(p0, 1, 10).owned()).isFalse();
            Batch p0ForB = b.poll(p0, 1, 10);
            assertThat(p0ForB.owned()).isTrue();
            assertThat(p0ForB.currentOffset()).isZero();
        }
    }

    @Test
    void an_empty_partition_zero_is_owned_when_we_are_the_only_member_and_not_claimed_otherwise() throws Exception {
        try (IggyMessageSource a = source()) {
            assertThat(a.poll(p0, 0, 10).owned()).isTrue();
            try (IggyMessageSource b = source()) {
                b.connect();
                // two members: the wire cannot tell who owns an empty partition 0, so nobody claims it
                assertThat(b.poll(p0, 0, 10).owned()).isFalse();
            }
        }
    }

    @Test
    void committed_offset_reads_the_group_offset() throws Exception {
        broker.storedOffsets.put(1, 41L);
        try (IggyMessageSource s = source()) {
            assertThat(s.committedOffset(p1)).isEqualTo(OptionalLong.of(41));
            assertThat(s.committedOffset(p0)).isEmpty();
        }
    }

    @Test
    void commit_stores_and_never_stores_a_smaller_or_equal_offset_again() throws Exception {
        broker.append(1, "a", "b", "c");
        try (IggyMessageSource s = source()) {
            s.commit(p1, 1);
            s.commit(p1, 1);
            s.commit(p1, 0);
            assertThat(broker.storeCalls()).isEqualTo(1);
            assertThat(broker.storedOffsets).containsEntry(1, 1L);

            s.commit(p1, 2);
            assertThat(broker.storedOffsets).containsEntry(1, 2L);
        }
    }

    @Test
    void commit_on_a_partition_moved_away_is_a_revocation_that_is_not_retried() throws Exception {
        broker.append(1, "a");
        try (IggyMessageSource a = source(); IggyMessageSource b = source()) {
            a.connect();
            b.connect();
            broker.assign(broker.connections.get(1), 1);

            PartitionRevokedException e = catchThrowableOfType(PartitionRevokedException.class,
                    () -> a.commit(p1, 0));
            assertThat(e.retryable()).isFalse();
            assertThat(e.partition()).isEqualTo(p1);
        }
    }

    @Test
    void commit_past_the_end_is_a_clear_non_retryable_error() throws Exception {
        broker.append(1, "a");
        try (IggyMessageSource s = source()) {
            SourceException e = catchThrowableOfType(SourceException.class, () -> s.commit(p1, 5));
            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).contains("4100").contains("offset 5");
            // the refused offset was not remembered as stored
            s.commit(p1, 0);
            assertThat(broker.storedOffsets).containsEntry(1, 0L);
        }
    }

    @Test
    void a_call_without_answer_times_out_rebuilds_the_session_and_bumps_the_epoch() throws Exception {
        broker.append(1, "a", "b");
        try (IggyMessageSource s = source()) {
            s.connect();
            broker.hangNext("poll");

            long started = System.nanoTime();
            SourceException e = catchThrowableOfType(SourceException.class, () -> s.poll(p1, 0, 10));
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).contains("no answer").contains("reconnected");
            assertThat(s.sessionEpoch()).isEqualTo(1);
            assertThat(broker.connections).hasSize(2);
            assertThat(broker.connections.get(0).closed).isTrue();

            Batch b = s.poll(p1, 0, 10);
            assertThat(b.sessionEpoch()).isEqualTo(1);
            assertThat(b.records()).hasSize(2);
        }
    }

    @Test
    void a_call_made_while_a_started_poll_is_unanswered_waits_for_that_answer_and_leaves_it_to_the_poll()
            throws Exception {
        broker.append(1, "a", "b", "c");
        try (IggyMessageSource s = source(settings(broker.password), Duration.ofSeconds(30))) {
            s.connect();
            CompletableFuture<Void> gate = broker.gateNext("poll");
            MessageSource.PendingPoll pending = s.startPoll(p1, 1, 10);

            // One request at a time on the connection, as without startPoll: the read of the committed offset is
            // sent only after the poll's answer came.
            CompletableFuture<OptionalLong> committed = new CompletableFuture<>();
            Thread reader = new Thread(() -> {
                try {
                    committed.complete(s.committedOffset(p1));
                } catch (Throwable t) {
                    committed.completeExceptionally(t);
                }
            });
            reader.start();
            await().atMost(Duration.ofSeconds(10)).until(() -> reader.getState() == Thread.State.TIMED_WAITING
                    || reader.getState() == Thread.State.TERMINATED);
            gate.complete(null);
            reader.join(10_000);

            assertThat(broker.sentWhileAnswerOut).isEmpty();
            assertThat(committed.get()).isEmpty();
            Batch b = pending.await();
            assertThat(b.records()).extracting(SinkRecord::offset).containsExactly(1L, 2L);
            assertThat(b.currentOffset()).isEqualTo(2);
            assertThat(b.sessionEpoch()).isZero();
        }
    }

    @Test
    void a_started_poll_without_answer_times_out_when_awaited_and_rebuilds_the_session() throws Exception {
        broker.append(1, "a", "b");
        try (IggyMessageSource s = source()) {
            s.connect();
            broker.hangNext("poll");
            MessageSource.PendingPoll pending = s.startPoll(p1, 0, 10);

            SourceException e = catchThrowableOfType(SourceException.class, pending::await);
            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).contains("no answer").contains("reconnected");
            assertThat(s.sessionEpoch()).isEqualTo(1);
            assertThat(broker.connections.get(0).closed).isTrue();
            Batch b = s.startPoll(p1, 0, 10).await();
            assertThat(b.sessionEpoch()).isEqualTo(1);
            assertThat(b.records()).hasSize(2);
        }
    }

    @Test
    void a_started_poll_whose_session_was_rebuilt_before_it_was_awaited_is_asked_again_on_the_new_one()
            throws Exception {
        broker.append(1, "a", "b");
        broker.append(0, "x");
        try (IggyMessageSource s = source()) {
            s.connect();
            MessageSource.PendingPoll pending = s.startPoll(p1, 0, 10);
            broker.failNext("poll", 5006); // the next poll finds the membership gone: a new session
            assertThat(catchThrowableOfType(SourceException.class, () -> s.poll(p0, 0, 10)).retryable()).isTrue();
            assertThat(s.sessionEpoch()).isEqualTo(1);

            Batch b = pending.await();

            assertThat(b.sessionEpoch()).as("answered in the new session, so the caller resyncs").isEqualTo(1);
            assertThat(b.records()).extracting(SinkRecord::offset).containsExactly(0L, 1L);
            assertThat(broker.connections).hasSize(2);
            assertThat(broker.calls.stream().filter("poll"::equals).count()).as("asked again").isEqualTo(3);
        }
    }

    @Test
    void losing_group_membership_rebuilds_the_session() throws Exception {
        broker.append(1, "a");
        try (IggyMessageSource s = source()) {
            s.connect();
            broker.failNext("poll", 5006);

            assertThat(catchThrowableOfType(SourceException.class, () -> s.poll(p1, 0, 10)).retryable()).isTrue();
            assertThat(s.sessionEpoch()).isEqualTo(1);
            assertThat(s.poll(p1, 0, 10).records()).hasSize(1);
        }
    }

    @Test
    void a_malformed_poll_answer_drops_the_connection_and_the_next_poll_runs_on_a_new_one() throws Exception {
        broker.append(1, "a");
        try (IggyMessageSource s = source()) {
            s.connect();
            broker.failNext("poll", PollResponseException.malformed("the poll answer for orders/created/1 ends"
                    + " inside a message header"));

            SourceException e = catchThrowableOfType(SourceException.class, () -> s.poll(p1, 0, 10));
            assertThat(e.retryable()).isTrue();
            assertThat(e.getMessage()).contains("malformed answer to poll orders/created/1 from offset 0")
                    .contains("ends inside a message header");
            assertThat(s.sessionEpoch()).isEqualTo(1);
            assertThat(broker.connections.get(0).closed).isTrue();
            assertThat(s.poll(p1, 0, 10).records()).hasSize(1);
        }
    }

    @Test
    void a_message_a_record_cannot_carry_stops_the_partition_with_its_offset_and_keeps_the_session()
            throws Exception {
        try (IggyMessageSource s = source()) {
            s.connect();
            broker.failNext("poll", PollResponseException.unreadable("message at offset 9223372036854775808 of"
                    + " orders/created/1 cannot be read: the offset is above 9223372036854775807"));

            SourceException e = catchThrowableOfType(SourceException.class, () -> s.poll(p1, 0, 10));
            assertThat(e.retryable()).isFalse();
            assertThat(e.getMessage()).startsWith("message at offset 9223372036854775808 of orders/created/1");
            assertThat(s.sessionEpoch()).isZero();
            assertThat(broker.connections).hasSize(1);
        }
    }

    @Test
    void a_server_that_is_down_after_a_reset_is_retried_with_backoff_then_rejoined() throws Exception {
        broker.append(1, "a");
        try (IggyMessageSource s = source()) {
            s.connect();
            broker.connections.get(0).closed = true; // the socket was reset
            broker.reachable = false;

            assertThat(catchThrowableOfType(SourceException.class, () -> s.poll(p1, 0, 10)).retryable()).isTrue();
            assertThat(catchThrowableOfType(SourceException.class, () -> s.poll(p1, 0, 10)).getMessage())
                    .contains("next attempt");
            assertThat(s.sessionEpoch()).isZero();

            broker.reachable = true;
            clock.addAndGet(IggyMessageSource.MAX_REBUILD_DELAY.toNanos());
            assertThat(s.poll(p1, 0, 10).records()).hasSize(1);
            assertThat(s.sessionEpoch()).isEqualTo(1);
        }
    }

    @Test
    void close_leaves_the_group_even_when_leaving_hangs_and_never_throws() {
        IggyMessageSource s = source();
        assertThatNoException(s);
        broker.hangNext("leave");
        long started = System.nanoTime();
        s.close();
        s.close();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(2));
        assertThat(broker.connections.get(0).closed).isTrue();
        assertThatThrownBy(() -> s.poll(p1, 0, 1)).isInstanceOf(SourceException.class).hasMessageContaining("closed");
    }

    @Test
    void close_leaves_the_group() throws Exception {
        IggyMessageSource s = source();
        s.connect();
        s.close();
        assertThat(broker.calls).contains("leave");
        assertThat(broker.members).isEmpty();
    }

    @Test
    void partitions_of_another_topic_are_refused() {
        try (IggyMessageSource s = source()) {
            assertThatThrownBy(() -> s.poll(new PartitionRef("orders", "other", 0), 0, 1))
                    .isInstanceOf(IllegalArgumentException.class);
        }
    }

    @Test
    void non_ascii_or_long_names_are_refused_up_front() {
        assertThatThrownBy(() -> new IggyMessageSource(settings("x"), "strëam", "t", "g", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new IggyMessageSource(settings("x"), "s", "t".repeat(128), "g", TIMEOUT))
                .isInstanceOf(IllegalArgumentException.class);
    }

    private static void assertThatNoException(IggyMessageSource s) {
        try {
            s.connect();
        } catch (SourceException e) {
            throw new AssertionError(e);
        }
    }
}
