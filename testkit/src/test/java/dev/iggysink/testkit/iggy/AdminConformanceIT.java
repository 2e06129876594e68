package dev.iggysink.testkit.iggy;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigInteger;
import java.util.List;
import java.util.Optional;
import org.apache.iggy.client.blocking.tcp.IggyTcpClient;
import org.apache.iggy.identifier.ConsumerId;
import org.apache.iggy.identifier.StreamId;
import org.apache.iggy.identifier.TopicId;
import org.apache.iggy.stream.StreamDetails;
import org.apache.iggy.system.ClientInfoDetails;
import org.apache.iggy.system.Stats;
import org.apache.iggy.topic.CompressionAlgorithm;
import org.apache.iggy.topic.TopicDetails;
import org.apache.iggy.user.IdentityInfo;
import org.junit.jupiter.api.Test;

/** Session, system, stream and topic commands, through the real 0.8 blocking client. */
class AdminConformanceIT extends ConformanceSupport {

    private static final BigInteger U64_MAX = BigInteger.ONE.shiftLeft(64).subtract(BigInteger.ONE);

    @Test
    void ping_works_without_login() {
        assertThat(anonymousClient().system().ping()).isEqualTo("pong");
    }

    @Test
    void a_wrong_password_gives_42_and_the_same_connection_can_then_log_in() {
        IggyTcpClient c = anonymousClient();
        assertIggyError(() -> c.users().login("iggy", "not-the-password"), 42);
        assertIggyError(() -> c.users().login("nobody-here", "iggy"), 42);
        // Client 0.8 race: a failed login's completion callback, which runs after the caller has already seen the
        // error, drops the cached login payload, and may drop the payload of a login issued meanwhile. A PING goes
        // through the same event loop, so once it returns those callbacks have run.
        c.system().ping();

        IdentityInfo identity = c.users().login("iggy", "iggy");

        assertThat(identity.userId()).isZero();
        assertThat(c.streams().getStream(StreamId.of(stream))).isPresent();
    }

    @Test
    void a_personal_access_token_logs_in_as_its_user_until_it_is_deleted_and_an_unknown_one_gives_20() {
        String name = uniqueName("pat");
        String token = admin.personalAccessTokens().createPersonalAccessToken(name, U64_MAX).token();
        assertThat(token).isNotBlank().hasSizeLessThanOrEqualTo(100);
        IggyTcpClient c = anonymousClient();
        try {
            // What a wrong token gets from an Iggy 0.8 server: "resource not found", not a credentials code.
            assertIggyError(() -> c.personalAccessTokens().loginWithPersonalAccessToken("no-such-token-" + name),
                    20);
            c.system().ping();

            IdentityInfo identity = c.personalAccessTokens().loginWithPersonalAccessToken(token);

            assertThat(identity.userId()).isZero();
            assertThat(c.streams().getStream(StreamId.of(stream))).isPresent();
            assertThat(admin.personalAccessTokens().getPersonalAccessTokens())
                    .anySatisfy(info -> assertThat(info.name()).isEqualTo(name));
            assertIggyError(() -> admin.personalAccessTokens().createPersonalAccessToken(name, U64_MAX), 51);
        } finally {
            admin.personalAccessTokens().deletePersonalAccessToken(name);
        }
        assertThat(admin.personalAccessTokens().getPersonalAccessTokens())
                .noneSatisfy(info -> assertThat(info.name()).isEqualTo(name));
        IggyTcpClient later = anonymousClient();
        assertIggyError(() -> later.personalAccessTokens().loginWithPersonalAccessToken(token), 20);
        assertIggyError(() -> admin.personalAccessTokens().deletePersonalAccessToken(name), 20);
    }

    @Test
    void a_personal_access_token_needs_a_name_of_3_to_30_characters() {
        // (Creating one before a login never reaches the server: the 0.8 client refuses it itself.)
        assertIggyError(() -> admin.personalAccessTokens().createPersonalAccessToken("ab", U64_MAX), 50);
        assertIggyError(() -> admin.personalAccessTokens().createPersonalAccessToken("a".repeat(31), U64_MAX), 50);
    }

    @Test
    void get_stats_before_login_is_refused_with_40() {
        // The client does not treat GET_STATS as needing auth, so the request reaches the server unauthenticated.
        IggyTcpClient c = anonymousClient();
        assertIggyError(() -> c.system().getStats(), 40);
    }

    @Test
    void get_me_describes_this_connection_and_its_group_memberships() {
        admin.topics().createTopic(StreamId.of(stream), 1L, CompressionAlgorithm.None, BigInteger.ZERO,
                BigInteger.ZERO, Optional.empty(), "t");
        var group = admin.consumerGroups().createConsumerGroup(StreamId.of(stream), TopicId.of("t"), "g");
        IggyTcpClient member = client();
        ClientInfoDetails before = member.system().getMe();
        member.consumerGroups().joinConsumerGroup(StreamId.of(stream), TopicId.of("t"), ConsumerId.of("g"));

        ClientInfoDetails after = member.system().getMe();

        assertThat(before.consumerGroupsCount()).isZero();
        assertThat(after.clientId()).isEqualTo(before.clientId());
        assertThat(after.clientId()).isNotEqualTo(admin.system().getMe().clientId());
        assertThat(after.transport()).isEqualTo("Tcp");
        // Root is user 0, which the 0.8 client reads as "no user".
        assertThat(after.userId()).isEmpty();
        assertThat(after.consumerGroupsCount()).isEqualTo(1);
        StreamDetails s = admin.streams().getStream(StreamId.of(stream)).orElseThrow();
        assertThat(after.consumerGroups()).singleElement().satisfies(info -> {
            assertThat(info.streamId()).isEqualTo(s.id());
            assertThat(info.topicId()).isEqualTo(s.topics().get(0).id());
            assertThat(info.consumerGroupId()).isEqualTo(group.id());
        });
    }

    @Test
    void get_stats_reports_the_catalogue() {
        admin.topics().createTopic(StreamId.of(stream), 2L, CompressionAlgorithm.None, BigInteger.ZERO,
                BigInteger.ZERO, Optional.empty(), "t");
        try (IggyProducer producer = IggyProducer.connect(endpoint.host(), endpoint.port())) {
            producer.send(stream, "t", 1, List.of(new byte[10], new byte[20]));
        }

        Stats stats = admin.system().getStats();

        assertThat(stats.streamsCount()).isPositive();
        assertThat(stats.topicsCount()).isPositive();
        assertThat(stats.partitionsCount()).isGreaterThanOrEqualTo(2);
        assertThat(stats.messagesCount()).isGreaterThanOrEqualTo(BigInteger.TWO);
        assertThat(stats.clientsCount()).isPositive();
        assertThat(stats.iggyServerVersion()).startsWith("0.8");
        assertThat(stats.iggyServerSemver()).isPresent();
    }

    @Test
    void streams_are_found_by_name_and_by_numeric_id_and_missing_ones_are_empty() {
        StreamDetails byName = admin.streams().getStream(StreamId.of(stream)).orElseThrow();
        StreamDetails byId = admin.streams().getStream(StreamId.of(byName.id())).orElseThrow();

        assertThat(byName.name()).isEqualTo(stream);
        assertThat(byName.topicsCount()).isZero();
        assertThat(byId.name()).isEqualTo(stream);
        assertThat(admin.streams().getStream(StreamId.of(uniqueName("missing")))).isEmpty();
        assertThat(admin.streams().getStream(StreamId.of(999_999L))).isEmpty();
    }

    @Test
    void stream_create_and_delete_errors() {
        assertIggyError(() -> admin.streams().createStream(stream), 1012);
        assertIggyError(() -> admin.streams().deleteStream(StreamId.of(uniqueName("missing"))), 1009);
        assertIggyError(() -> admin.streams().deleteStream(StreamId.of(999_999L)), 1009);
    }

    @Test
    void a_deleted_stream_is_gone_and_its_id_is_reused_by_the_next_create() {
        String other = uniqueName("it-reuse");
        StreamDetails created = admin.streams().createStream(other);
        admin.streams().deleteStream(StreamId.of(other));

        assertThat(admin.streams().getStream(StreamId.of(other))).isEmpty();
        String again = uniqueName("it-reuse");
        try {
            StreamDetails next = admin.streams().createStream(again);
            assertThat(next.id()).isEqualTo(created.id());
            assertThat(next.topicsCount()).isZero();
        } finally {
            admin.streams().deleteStream(StreamId.of(again));
        }
    }

    @Test
    void a_topic_gets_partitions_zero_to_n_and_server_defaults() {
        TopicDetails created = admin.topics().createTopic(StreamId.of(stream), 3L, CompressionAlgorithm.None,
                BigInteger.ZERO, BigInteger.ZERO, Optional.empty(), "orders");

        assertThat(created.name()).isEqualTo("orders");
        assertThat(created.partitionsCount()).isEqualTo(3);
        assertThat(created.partitions()).extracting(p -> p.id()).containsExactly(0L, 1L, 2L);
        assertThat(created.partitions()).allSatisfy(p -> {
            assertThat(p.messagesCount()).isEqualTo(BigInteger.ZERO);
            assertThat(p.currentOffset()).isEqualTo(BigInteger.ZERO);
        });
        assertThat(created.messageExpiry()).isEqualTo(U64_MAX);
        assertThat(created.maxTopicSize()).isEqualTo(U64_MAX);
        assertThat(created.replicationFactor()).isEqualTo((short) 1);
        assertThat(created.compressionAlgorithm()).isEqualTo(CompressionAlgorithm.None);

        TopicDetails byId = admin.topics().getTopic(StreamId.of(stream), TopicId.of(created.id())).orElseThrow();
        assertThat(byId.name()).isEqualTo("orders");
        assertThat(admin.streams().getStream(StreamId.of(stream)).orElseThrow().topics())
                .extracting(t -> t.name())
                .containsExactly("orders");
    }

    @Test
    void topic_lookups_and_errors() {
        admin.topics().createTopic(StreamId.of(stream), 1L, CompressionAlgorithm.None, BigInteger.ZERO,
                BigInteger.ZERO, Optional.empty(), "t");

        assertThat(admin.topics().getTopic(StreamId.of(stream), TopicId.of("missing"))).isEmpty();
        assertThat(admin.topics().getTopic(StreamId.of(uniqueName("missing")), TopicId.of("t"))).isEmpty();
        assertIggyError(() -> admin.topics().createTopic(StreamId.of(stream), 1L, CompressionAlgorithm.None,
                BigInteger.ZERO, BigInteger.ZERO, Optional.empty(), "t"), 2013);
        assertIggyError(() -> admin.topics().createTopic(StreamId.of(uniqueName("missing")), 1L,
                CompressionAlgorithm.None, BigInteger.ZERO, BigInteger.ZERO, Optional.empty(), "t"), 1009);
        assertIggyError(() -> admin.topics().createTopic(StreamId.of(stream), 1001L, CompressionAlgorithm.None,
                BigInteger.ZERO, BigInteger.ZERO, Optional.empty(), "too-many"), 2015);
    }

    @Test
    void commands_on_a_logged_out_connection_are_refused_with_40() {
        IggyTcpClient c = anonymousClient();
        c.users().login("iggy", "iggy");
        c.users().logout();
        // After logout the client itself refuses auth-requiring calls, but GET_STATS still goes out.
        assertIggyError(() -> c.system().getStats(), 40);
    }
}
