package dev.iggysink.adapters.iggy;

import dev.iggysink.domain.message.MessageId;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.message.SinkRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import org.apache.iggy.exception.IggyServerException;

/**
 * A scripted stand-in for one Iggy topic with one consumer group, answering as the 0.8 server does (see
 * docs/adr/0003-explicit-offset-consumer.md; not-owned polls are {@code 0/0/empty}, stores need ownership, 4100 past the end). Faults are queued per
 * operation name: a never-completing future (a wedged client) or a server error code.
 */
final class FakeBroker {
    final String stream;
    final String topic;
    String username = "sink";
    String password = "s3cret-pass";
    String token;
    boolean streamExists = true;
    boolean topicExists = true;
    boolean reachable = true;
    boolean groupExists;
    RuntimeException connectFailure;
    final List<List<SinkRecord>> partitions = new ArrayList<>();
    final Map<Integer, Long> storedOffsets = new HashMap<>();
    final List<Conn> connections = new ArrayList<>();
    /** Join order; each member's owned partitions. */
    final Map<Conn, Set<Integer>> members = new LinkedHashMap<>();
    final List<String> calls = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Map<String, Deque<Supplier<CompletableFuture<?>>>> faults = new HashMap<>();

    FakeBroker(String stream, String topic, int partitionCount) {
        this.stream = stream;
        this.topic = topic;
        for (int i = 0; i < partitionCount; i++) {
            partitions.add(new ArrayList<>());
        }
    }

    IggyConnection.Factory factory() {
        return () -> {
            Conn c = new Conn();
            connections.add(c);
            return c;
        };
    }

    void append(int partition, String... payloads) {
        List<SinkRecord> p = partitions.get(partition);
        PartitionRef ref = new PartitionRef(stream, topic, partition);
        for (String payload : payloads) {
            long offset = p.size();
            byte[] bytes = payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            p.add(new SinkRecord(ref, offset, 1_700_000_000_000_000L + offset, 0, new MessageId(0, offset + 1),
                    List.of(), bytes));
        }
    }

    /** Calls made while a gated answer was still out on the same connection (two requests in flight). */
    final List<String> sentWhileAnswerOut = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Map<String, CompletableFuture<Void>> gates = new java.util.concurrent.ConcurrentHashMap<>();

    /** The next call of {@code op} is answered as usual, but only once the returned gate is completed. */
    CompletableFuture<Void> gateNext(String op) {
        CompletableFuture<Void> gate = new CompletableFuture<>();
        gates.put(op, gate);
        return gate;
    }

    void hangNext(String op) {
        faults.computeIfAbsent(op, k -> new ArrayDeque<>()).add(CompletableFuture::new);
    }

    void failNext(String op, int code) {
        faults.computeIfAbsent(op, k -> new ArrayDeque<>())
                .add(() -> CompletableFuture.failedFuture(new IggyServerException(code)));
    }

    /** The next call of {@code op} fails with {@code failure}, as a client-side failure (not a server code). */
    void failNext(String op, RuntimeException failure) {
        faults.computeIfAbsent(op, k -> new ArrayDeque<>()).add(() -> CompletableFuture.failedFuture(failure));
    }

    /** The next call of {@code op} fails with {@code code} after {@code sideEffect} ran (a racing client). */
    void failNext(String op, int code, Runnable sideEffect) {
        faults.computeIfAbsent(op, k -> new ArrayDeque<>()).add(() -> {
            sideEffect.run();
            return CompletableFuture.failedFuture(new IggyServerException(code));
        });
    }

    Set<Integer> owned(Conn c) {
        return members.getOrDefault(c, Set.of());
    }

    void assign(Conn c, Integer... ids) {
        for (Set<Integer> s : members.values()) {
            s.removeAll(List.of(ids));
        }
        members.get(c).addAll(List.of(ids));
    }

    long storeCalls() {
        return calls.stream().filter("store"::equals).count();
    }

    final class Conn implements IggyConnection {
        boolean connected;
        boolean loggedIn;
        boolean closed;

        /** The answer of a gated call, while it is out. */
        private volatile CompletableFuture<?> answerOut;

        private <T> CompletableFuture<T> op(String name, Supplier<T> body) {
            CompletableFuture<?> out = answerOut;
            if (out != null && !out.isDone()) sentWhileAnswerOut.add(name);
            CompletableFuture<Void> gate = gates.remove(name);
            CompletableFuture<T> answer = answer(name, body);
            if (gate == null) return answer;
            CompletableFuture<T> gated = gate.thenCompose(v -> answer);
            answerOut = gated;
            return gated;
        }

        private <T> CompletableFuture<T> answer(String name, Supplier<T> body) {
            calls.add(name);
            Deque<Supplier<CompletableFuture<?>>> q = faults.get(name);
            if (q != null && !q.isEmpty()) {
                @SuppressWarnings("unchecked")
                CompletableFuture<T> f = (CompletableFuture<T>) q.poll().get();
                return f;
            }
            if (closed || !connected) {
                return CompletableFuture.failedFuture(new java.io.IOException("Connection reset by peer"));
            }
            if (!name.equals("login") && !loggedIn) {
                return CompletableFuture.failedFuture(new IggyServerException(40));
            }
            try {
                return CompletableFuture.completedFuture(body.get());
            } catch (IggyServerException e) {
                return CompletableFuture.failedFuture(e);
            }
        }

        @Override
        public CompletableFuture<Void> connect() {
            calls.add("connect");
            if (connectFailure != null) {
                return CompletableFuture.failedFuture(connectFailure);
            }
            if (!reachable) {
                return CompletableFuture.failedFuture(new java.net.ConnectException("Connection refused"));
            }
            connected = true;
            return CompletableFuture.completedFuture(null);
        }

        @Override
        public CompletableFuture<Void> login(String u, String p) {
            return op("login", () -> {
                if (!u.equals(username) || !p.equals(password)) throw new IggyServerException(42);
                loggedIn = true;
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> loginWithToken(String t) {
            return op("login", () -> {
                // What an Iggy 0.8 server answers a token it does not know: 20, "resource not found".
                if (!t.equals(token)) throw new IggyServerException(20);
                loggedIn = true;
                return null;
            });
        }

        @Override
        public CompletableFuture<Boolean> streamExists(String s) {
            return op("getStream", () -> streamExists && s.equals(stream));
        }

        @Override
        public CompletableFuture<Optional<List<Integer>>> topicPartitions(String s, String t) {
            return op("getTopic", () -> {
                if (!streamExists || !topicExists || !s.equals(stream) || !t.equals(topic)) return Optional.empty();
                List<Integer> ids = new ArrayList<>();
                for (int i = 0; i < partitions.size(); i++) ids.add(i);
                return Optional.of(ids);
            });
        }

        @Override
        public CompletableFuture<Optional<java.util.Map<Integer, Long>>> partitionEnds(String s, String t) {
            return op("getTopic", () -> {
                if (!streamExists || !topicExists || !s.equals(stream) || !t.equals(topic)) return Optional.empty();
                java.util.Map<Integer, Long> ends = new java.util.TreeMap<>();
                for (int i = 0; i < partitions.size(); i++) ends.put(i, (long) partitions.get(i).size() - 1);
                return Optional.of(ends);
            });
        }

        @Override
        public CompletableFuture<Optional<List<List<Integer>>>> groupMembers(String s, String t, String g) {
            return op("getGroup", () -> {
                if (!groupExists) return Optional.empty();
                List<List<Integer>> out = new ArrayList<>();
                for (Set<Integer> owned : members.values()) out.add(List.copyOf(owned));
                return Optional.of(out);
            });
        }

        @Override
        public CompletableFuture<Void> createGroup(String s, String t, String g) {
            return op("createGroup", () -> {
                if (groupExists) throw new IggyServerException(5004);
                groupExists = true;
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> joinGroup(String s, String t, String g) {
            return op("join", () -> {
                if (!groupExists) throw new IggyServerException(5000);
                if (!members.containsKey(this)) {
                    Set<Integer> mine = new TreeSet<>();
                    for (int i = 0; i < partitions.size(); i++) {
                        final int id = i;
                        if (members.values().stream().noneMatch(o -> o.contains(id))) mine.add(id);
                    }
                    members.put(this, mine);
                }
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> leaveGroup(String s, String t, String g) {
            return op("leave", () -> {
                if (members.remove(this) == null) throw new IggyServerException(5006);
                return null;
            });
        }

        @Override
        public CompletableFuture<PolledRecords> poll(PartitionRef ref, String g, long offset, int count) {
            return op("poll", () -> {
                int partition = ref.partitionId();
                if (!members.containsKey(this)) throw new IggyServerException(5006);
                if (!members.get(this).contains(partition)) {
                    return new PolledRecords(0, 0, List.of());
                }
                List<SinkRecord> all = partitions.get(partition);
                long current = Math.max(0, all.size() - 1);
                List<SinkRecord> out = new ArrayList<>();
                for (long o = offset; o < all.size() && out.size() < count; o++) out.add(all.get((int) o));
                return new PolledRecords(partition, current, out);
            });
        }

        @Override
        public CompletableFuture<OptionalLong> storedOffset(String s, String t, String g, int partition) {
            return op("getOffset", () -> {
                Long v = storedOffsets.get(partition);
                return v == null ? OptionalLong.empty() : OptionalLong.of(v);
            });
        }

        @Override
        public CompletableFuture<Void> storeOffset(String s, String t, String g, int partition, long offset) {
            return op("store", () -> {
                if (!members.containsKey(this)) throw new IggyServerException(5006);
                if (!members.get(this).contains(partition)) throw new IggyServerException(3022);
                if (partitions.get(partition).isEmpty() || offset > partitions.get(partition).size() - 1) {
                    throw new IggyServerException(4100);
                }
                storedOffsets.put(partition, offset);
                return null;
            });
        }

        @Override
        public CompletableFuture<Void> close() {
            calls.add("close");
            closed = true;
            members.remove(this);
            Deque<Supplier<CompletableFuture<?>>> q = faults.get("close");
            if (q != null && !q.isEmpty()) {
                @SuppressWarnings("unchecked")
                CompletableFuture<Void> f = (CompletableFuture<Void>) q.poll().get();
                return f;
            }
            return CompletableFuture.completedFuture(null);
        }
    }
}
