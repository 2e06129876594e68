package dev.iggysink.testkit.iggy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rebalancing rules in isolation, including cases the wire suite does not reach (stale revocation targets). */
class ConsumerGroupEntityTest {

    private final StreamEntity stream = new StreamEntity(0, "s", 0);

    private ConsumerGroupEntity group(int partitions) {
        TopicEntity topic = new TopicEntity(stream, 0, "t", 0, partitions, -1, 1, -1, 1);
        return new ConsumerGroupEntity(topic, 0, "g");
    }

    private static Map<Integer, List<Integer>> owners(ConsumerGroupEntity g) {
        Map<Integer, List<Integer>> out = new LinkedHashMap<>();
        for (ConsumerGroupEntity.Member m : g.members.values()) {
            out.put(m.id, List.copyOf(m.partitions));
        }
        return out;
    }

    private static ClientSession client(int port) {
        return new ClientSession("127.0.0.1:" + port);
    }

    @Test
    void one_partition_per_idle_member_moves_on_each_join() {
        ConsumerGroupEntity g = group(16);
        g.join(client(1), 0);
        g.join(client(2), 0);
        g.join(client(3), 0);

        assertThat(owners(g).get(0)).hasSize(14);
        assertThat(owners(g).get(1)).containsExactly(15);
        assertThat(owners(g).get(2)).containsExactly(14);
    }

    @Test
    void a_full_rebalance_deals_round_robin_in_slot_order_and_clears_pending_moves() {
        ConsumerGroupEntity g = group(5);
        ClientSession a = client(1);
        g.join(a, 0);
        g.lastPolled.put(4, 3L);
        g.join(client(2), 0);
        assertThat(g.hasPendingRevocations()).isTrue();

        g.join(client(3), 0);
        g.leave(a);

        assertThat(g.hasPendingRevocations()).isFalse();
        assertThat(owners(g)).containsExactly(Map.entry(1, List.of(0, 2, 4)), Map.entry(2, List.of(1, 3)));
    }

    @Test
    void a_new_member_id_is_one_above_the_highest_present_and_takes_the_freed_slot() {
        ConsumerGroupEntity g = group(2);
        ClientSession a = client(1);
        ClientSession b = client(2);
        ClientSession c = client(3);
        g.join(a, 0);
        g.join(b, 0);
        g.join(c, 0);
        g.leave(b);
        ClientSession d = client(4);
        g.join(d, 0);

        assertThat(owners(g).keySet()).containsExactly(0, 3, 2);
        assertThat(g.memberOf(d).slab).isEqualTo(1);
    }

    @Test
    void a_move_whose_target_left_ends_in_a_full_rebalance() {
        ConsumerGroupEntity g = group(2);
        ClientSession a = client(1);
        ClientSession b = client(2);
        g.join(a, 0);
        g.lastPolled.put(1, 0L);
        g.join(b, 0);
        // Remove the target without the leave path's rebalance, as a slot reuse would look to the revocation.
        g.members.remove(g.memberOf(b).slab);
        g.join(client(3), 0);

        g.expireRevocations(Long.MAX_VALUE, 1);

        assertThat(g.hasPendingRevocations()).isFalse();
        assertThat(owners(g).values()).extracting(List::size).containsExactly(1, 1);
    }

    @Test
    void timed_out_moves_complete_and_young_ones_wait() {
        ConsumerGroupEntity g = group(2);
        g.join(client(1), 0);
        g.lastPolled.put(1, 0L);
        g.join(client(2), 1_000);

        g.expireRevocations(1_500, 1_000);
        assertThat(owners(g)).containsExactly(Map.entry(0, List.of(0, 1)), Map.entry(1, List.of()));

        g.expireRevocations(2_000, 1_000);
        assertThat(owners(g)).containsExactly(Map.entry(0, List.of(0)), Map.entry(1, List.of(1)));
    }
}
