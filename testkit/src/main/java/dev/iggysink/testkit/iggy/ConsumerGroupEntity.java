package dev.iggysink.testkit.iggy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A consumer group and the 0.8 server's assignment rules: a cooperative rebalance on join (with pending revocations),
 * a full round-robin rebalance on leave or disconnect. Offsets and "last polled" marks are per (group, partition), so
 * they outlive members and die with the group.
 */
final class ConsumerGroupEntity {

    /** A partition the holder keeps owning until the move to {@code targetSlab} completes. */
    record Revocation(int partitionId, int targetSlab, int targetMemberId, long createdAtNanos) {}

    static final class Member {
        final int slab;
        final int id;
        final ClientSession client;
        final List<Integer> partitions = new ArrayList<>();
        final List<Revocation> pending = new ArrayList<>();
        long roundRobin;

        Member(int slab, int id, ClientSession client) {
            this.slab = slab;
            this.id = id;
            this.client = client;
        }

        boolean isRevoking(int partitionId) {
            for (Revocation r : pending) {
                if (r.partitionId() == partitionId) {
                    return true;
                }
            }
            return false;
        }

        /** Owned partitions that round-robin may hand out: pending revocations are skipped. */
        List<Integer> servable() {
            List<Integer> out = new ArrayList<>(partitions.size());
            for (Integer p : partitions) {
                if (!isRevoking(p)) {
                    out.add(p);
                }
            }
            return out;
        }
    }

    final TopicEntity topic;
    final int id;
    final String name;
    final List<Integer> partitions = new ArrayList<>();
    final Slab<Member> members = new Slab<>();
    final Map<Integer, Long> offsets = new HashMap<>();
    final Map<Integer, Long> lastPolled = new HashMap<>();

    ConsumerGroupEntity(TopicEntity topic, int id, String name) {
        this.topic = topic;
        this.id = id;
        this.name = name;
        for (PartitionLog p : topic.partitions) {
            partitions.add(p.id);
        }
    }

    Member memberOf(ClientSession client) {
        for (Member m : members.values()) {
            if (m.client == client) {
                return m;
            }
        }
        return null;
    }

    /** Idempotent. Any join, new or repeated, also completes whichever revocations have become completable. */
    void join(ClientSession client, long nowNanos) {
        if (memberOf(client) == null) {
            int nextId = 0;
            for (Member m : members.values()) {
                nextId = Math.max(nextId, m.id + 1);
            }
            int slab = members.nextKey();
            members.insert(new Member(slab, nextId, client));
            rebalanceCooperative(nowNanos);
        }
        completeCompletableRevocations();
    }

    boolean leave(ClientSession client) {
        Member m = memberOf(client);
        if (m == null) {
            return false;
        }
        members.remove(m.slab);
        rebalanceFull();
        return true;
    }

    /** Leave and disconnect: clear everything (pending moves included) and deal partitions round-robin. */
    void rebalanceFull() {
        List<Member> ms = members.values();
        if (ms.isEmpty() || partitions.isEmpty()) {
            return;
        }
        for (Member m : ms) {
            m.partitions.clear();
            m.pending.clear();
        }
        for (int i = 0; i < partitions.size(); i++) {
            ms.get(i % ms.size()).partitions.add(partitions.get(i));
        }
    }

    /**
     * Join rebalance as the 0.8 server does it: unassigned partitions go to members owning nothing; then each
     * over-assigned member gives up partitions from the end of its list, but only one per idle member, so the result
     * may stay unbalanced (4 partitions over 2 members ends 3/1) until a full rebalance.
     */
    void rebalanceCooperative(long nowNanos) {
        List<Member> ms = members.values();
        if (ms.isEmpty() || partitions.isEmpty()) {
            return;
        }
        Set<Integer> assigned = new HashSet<>();
        for (Member m : ms) {
            assigned.addAll(m.partitions);
        }
        List<Integer> unassigned = new ArrayList<>();
        for (Integer p : partitions) {
            if (!assigned.contains(p)) {
                unassigned.add(p);
            }
        }
        if (!unassigned.isEmpty()) {
            List<Member> idle = new ArrayList<>();
            for (Member m : ms) {
                if (m.partitions.isEmpty()) {
                    idle.add(m);
                }
            }
            if (!idle.isEmpty()) {
                for (int i = 0; i < unassigned.size(); i++) {
                    idle.get(i % idle.size()).partitions.add(unassigned.get(i));
                }
            }
        }

        int fairShare = partitions.size() / ms.size();
        int withRemainder = partitions.size() % ms.size();
        Set<Integer> alreadyTargeted = new HashSet<>();
        for (Member m : ms) {
            for (Revocation r : m.pending) {
                alreadyTargeted.add(r.targetSlab());
            }
        }
        List<Member> idle = new ArrayList<>();
        for (Member m : ms) {
            if (m.partitions.isEmpty() && !alreadyTargeted.contains(m.slab)) {
                idle.add(m);
            }
        }
        for (Member m : ms) {
            if (idle.isEmpty()) {
                break;
            }
            List<Integer> servable = m.servable();
            int effective = servable.size();
            int maxAllowed = withRemainder > 0 ? fairShare + 1 : fairShare;
            if (effective <= maxAllowed) {
                if (effective > fairShare && withRemainder > 0) {
                    withRemainder--;
                }
                continue;
            }
            int excess = effective - maxAllowed;
            if (withRemainder > 0 && effective > fairShare) {
                withRemainder--;
            }
            for (int i = servable.size() - 1; i >= 0 && excess > 0 && !idle.isEmpty(); i--, excess--) {
                Member target = idle.remove(0);
                m.pending.add(new Revocation(servable.get(i), target.slab, target.id, nowNanos));
            }
        }
    }

    /** A move may complete when the group never polled the partition or has committed at least what it polled. */
    boolean isCompletable(int partitionId) {
        Long polled = lastPolled.get(partitionId);
        if (polled == null) {
            return true;
        }
        Long committed = offsets.get(partitionId);
        return committed != null && committed >= polled;
    }

    void completeCompletableRevocations() {
        for (Member m : members.values()) {
            for (Revocation r : List.copyOf(m.pending)) {
                if (isCompletable(r.partitionId())) {
                    completeRevocation(m, r);
                }
            }
        }
    }

    /** After a store or auto-commit by the holder: only that member's move of that partition can complete. */
    void onCommitted(Member holder, int partitionId) {
        for (Revocation r : List.copyOf(holder.pending)) {
            if (r.partitionId() == partitionId && isCompletable(partitionId)) {
                completeRevocation(holder, r);
            }
        }
    }

    void expireRevocations(long nowNanos, long timeoutNanos) {
        for (Member m : members.values()) {
            for (Revocation r : List.copyOf(m.pending)) {
                if (nowNanos - r.createdAtNanos() >= timeoutNanos && members.get(m.slab) == m) {
                    completeRevocation(m, r);
                }
            }
        }
    }

    private void completeRevocation(Member holder, Revocation r) {
        if (!holder.pending.remove(r)) {
            return;
        }
        holder.partitions.remove(Integer.valueOf(r.partitionId()));
        Member target = members.get(r.targetSlab());
        if (target == null || target.id != r.targetMemberId()) {
            // The target left (or its slot was reused) while the move was pending: the server falls back to this.
            rebalanceFull();
            return;
        }
        target.partitions.add(r.partitionId());
    }

    boolean hasPendingRevocations() {
        for (Member m : members.values()) {
            if (!m.pending.isEmpty()) {
                return true;
            }
        }
        return false;
    }
}
