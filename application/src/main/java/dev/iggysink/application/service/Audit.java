package dev.iggysink.application.service;

import dev.iggysink.application.deadletter.DeadLetters;
import dev.iggysink.application.port.in.AuditUseCase;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;
import dev.iggysink.domain.message.PartitionRef;
import dev.iggysink.domain.naming.KeyRange;
import dev.iggysink.domain.naming.ObjectKey;
import dev.iggysink.domain.naming.PathTemplate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * The audit use case: reads the objects of a topic from the store and compares their keys (and, when a reader is
 * given, their content) with the committed offsets.
 */
public final class Audit implements AuditUseCase {
    private final ObjectStore store;

    public Audit(ObjectStore store) {
        this.store = store;
    }

    @Override
    public String deadLetterPrefix(String prefix, String dlqPrefix, String stream, String topic) {
        return DeadLetters.topicPrefix(prefix, dlqPrefix, stream, topic);
    }

    @Override
    public List<PartitionAudit> audit(String listPrefix, String excludeSegment, String deadLetterPrefix,
                                      List<PartitionRef> partitions,
                                      Function<PartitionRef, OptionalLong> committedOffsets,
                                      ContentOffsets content) throws StoreException {
        List<StoredObject> letters = store.list(deadLetterPrefix);
        List<PartitionAudit> out = new ArrayList<>();
        for (PartitionAudit a : keyed(store, listPrefix, excludeSegment, partitions, committedOffsets, content)) {
            List<Long> dead = new ArrayList<>();
            for (StoredObject o : letters) {
                DeadLetters.offset(o.key().substring(deadLetterPrefix.length()), a.partition().partitionId())
                        .ifPresent(dead::add);
            }
            dead.sort(null);
            List<Range> gaps = new ArrayList<>();
            for (Range g : a.gaps()) gaps.addAll(without(g, dead));
            out.add(new PartitionAudit(a.partition(), a.committed(), a.objects(), a.covered(), gaps, a.overlaps(),
                    a.mismatches(), List.copyOf(dead), a.trustedByKey()));
        }
        return out;
    }

    /** The parts of {@code gap} that are not among the sorted {@code offsets}. */
    static List<Range> without(Range gap, List<Long> offsets) {
        List<Range> out = new ArrayList<>();
        long next = gap.first();
        for (long o : offsets) {
            if (o < next || o > gap.last()) continue;
            if (o > next) out.add(new Range(next, o - 1));
            next = o + 1;
        }
        if (next <= gap.last()) out.add(new Range(next, gap.last()));
        return out;
    }

    @Override
    public String listPrefix(String prefix, String template, String stream, String topic) {
        StringBuilder sb = new StringBuilder();
        if (!prefix.isEmpty()) sb.append(prefix).append('/');
        String fixed = PathTemplate.parse(template).fixedPrefix(stream, topic);
        int slash = fixed.lastIndexOf('/');
        if (slash >= 0) sb.append(fixed, 0, slash + 1);
        return sb.toString();
    }

    /** The audit of the objects' keys (and content), before dead letters are counted. */
    private static List<PartitionAudit> keyed(ObjectStore store, String listPrefix, String excludeSegment,
                                              List<PartitionRef> partitions,
                                      Function<PartitionRef, OptionalLong> committedOffsets,
                                      ContentOffsets content) throws StoreException {
        List<StoredObject> objects = store.list(listPrefix);
        List<PartitionAudit> out = new ArrayList<>();
        for (PartitionRef p : partitions) {
            List<String> mismatches = new ArrayList<>();
            List<KeyRange> ranges = new ArrayList<>();
            List<String> keys = new ArrayList<>();
            List<String> trustedByKey = new ArrayList<>();
            List<Boolean> whole = new ArrayList<>();
            List<KeyRange> redriven = new ArrayList<>();
            List<String> redrivenKeys = new ArrayList<>();
            for (StoredObject o : objects) {
                if (!excludeSegment.isEmpty() && o.key().contains("/" + excludeSegment + "/")) continue;
                Optional<KeyRange> r = ObjectKey.parse(o.key());
                Optional<KeyRange> firstOnly = r.isPresent() ? Optional.empty() : ObjectKey.parseFirst(o.key());
                int partition = r.or(() -> firstOnly).map(KeyRange::partitionId).orElse(-1);
                if (partition != p.partitionId()) continue;
                Map<String, String> metadata = store.metadata(o.key()).orElse(Map.of());
                if (firstOnly.isPresent()) {
                    r = firstOffsetRange(o.key(), firstOnly.get(), metadata, mismatches);
                    if (r.isEmpty()) continue;
                }
                if (metadata.containsKey(Redrive.REDRIVEN_FROM)) {
                    redriven.add(r.get());
                    redrivenKeys.add(o.key());
                } else {
                    ranges.add(r.get());
                    keys.add(o.key());
                    OptionalLong records = ObjectStamps.records(metadata);
                    whole.add(records.isEmpty()
                            || records.getAsLong() == r.get().lastOffset() - r.get().firstOffset() + 1);
                }
                Optional<long[]> inside = content.firstAndLast(o.key(), store.get(o.key()));
                if (inside.isPresent() && (inside.get()[0] != r.get().firstOffset()
                        || inside.get()[1] != r.get().lastOffset())) {
                    mismatches.add(o.key() + " holds offsets " + inside.get()[0] + "-" + inside.get()[1]);
                }
                metadataProblem(o.key(), r.get(), metadata).ifPresent(mismatches::add);
                if (inside.isEmpty() && !ObjectStamps.stamped(metadata)) trustedByKey.add(o.key());
            }
            long committed = committedOffsets.apply(p).orElse(-1);
            List<String> overlaps = new ArrayList<>(coverage(p, committed, ranges, keys, mismatches).overlaps());
            overlaps.addAll(redrivenOverlaps(redriven, redrivenKeys, ranges, keys, whole));
            ranges.addAll(redriven);
            keys.addAll(redrivenKeys);
            PartitionAudit a = coverage(p, committed, ranges, keys, mismatches);
            out.add(new PartitionAudit(p, committed, a.objects(), a.covered(), a.gaps(), overlaps, a.mismatches(),
                    a.deadLettered(), List.copyOf(trustedByKey)));
        }
        return out;
    }

    /**
     * The redriven objects (ADR 0018) that duplicate a record: one inside a data object that holds every record of its
     * range (or does not say how many it holds), or a second one of the same offset. A data object with fewer records
     * than its range lacks its dead-lettered records, which their redriven objects hold.
     */
    private static List<String> redrivenOverlaps(List<KeyRange> redriven, List<String> redrivenKeys,
                                                 List<KeyRange> ranges, List<String> keys, List<Boolean> whole) {
        List<String> out = new ArrayList<>();
        for (int i = 0; i < redriven.size(); i++) {
            KeyRange r = redriven.get(i);
            for (int j = 0; j < ranges.size(); j++) {
                KeyRange d = ranges.get(j);
                if (whole.get(j) && r.firstOffset() <= d.lastOffset() && r.lastOffset() >= d.firstOffset()) {
                    out.add(redrivenKeys.get(i) + " overlaps " + keys.get(j));
                }
            }
            for (int k = 0; k < i; k++) {
                KeyRange e = redriven.get(k);
                if (r.firstOffset() <= e.lastOffset() && r.lastOffset() >= e.firstOffset()) {
                    out.add(redrivenKeys.get(i) + " overlaps " + redrivenKeys.get(k));
                }
            }
        }
        return out;
    }

    /**
     * The range of an object under a first-offset key (ADR 0019), which its metadata names; empty, with a mismatch
     * added, when the metadata names no range starting where the key says.
     */
    static Optional<KeyRange> firstOffsetRange(String key, KeyRange firstOnly, Map<String, String> metadata,
                                               List<String> mismatches) {
        long first = firstOnly.firstOffset();
        Optional<KeyRange> r = ObjectStamps.offsets(metadata).filter(a -> a[0] == first && a[1] >= first)
                .map(a -> new KeyRange(firstOnly.partitionId(), a[0], a[1]));
        if (r.isEmpty()) {
            mismatches.add(key + " names no range starting at " + first + " in its metadata ("
                    + ObjectStamps.OFFSETS + " = " + metadata.get(ObjectStamps.OFFSETS) + ")");
        }
        return r;
    }

    /**
     * What is wrong with an object's metadata ({@link ObjectStamps}) against its key, if anything (metadata that
     * agrees with the key agrees with the content wherever the key does, which is checked beside it). Objects
     * written before objects carried metadata (or by another writer) have none and are not judged by it.
     */
    static Optional<String> metadataProblem(String key, KeyRange range, Map<String, String> metadata) {
        if (!metadata.containsKey(ObjectStamps.OFFSETS)) return Optional.empty();
        Optional<long[]> stated = ObjectStamps.offsets(metadata);
        if (stated.isEmpty() || stated.get()[0] != range.firstOffset() || stated.get()[1] != range.lastOffset()) {
            return Optional.of(key + " says in its metadata it holds offsets " + metadata.get(ObjectStamps.OFFSETS));
        }
        OptionalLong first = ObjectStamps.offsetOf(metadata.get(ObjectStamps.FIRST));
        OptionalLong last = ObjectStamps.offsetOf(metadata.get(ObjectStamps.LAST));
        if (first.isEmpty() || last.isEmpty() || first.getAsLong() != range.firstOffset()
                || last.getAsLong() != range.lastOffset()) {
            return Optional.of(key + " names its first and last record " + metadata.get(ObjectStamps.FIRST) + " and "
                    + metadata.get(ObjectStamps.LAST) + " in its metadata");
        }
        OptionalLong records = ObjectStamps.records(metadata);
        long span = range.lastOffset() - range.firstOffset() + 1;
        if (records.isEmpty() || records.getAsLong() < 1 || records.getAsLong() > span) {
            return Optional.of(key + " says in its metadata it holds " + metadata.get(ObjectStamps.RECORDS)
                    + " records of a range of " + span);
        }
        return Optional.empty();
    }

    static PartitionAudit coverage(PartitionRef p, long committed, List<KeyRange> ranges, List<String> keys,
                                   List<String> mismatches) {
        List<Integer> order = new ArrayList<>();
        for (int i = 0; i < ranges.size(); i++) order.add(i);
        order.sort(Comparator.comparingLong((Integer i) -> ranges.get(i).firstOffset())
                .thenComparingLong(i -> ranges.get(i).lastOffset()));
        List<Range> covered = new ArrayList<>();
        List<String> overlaps = new ArrayList<>();
        long coveredUpTo = -1;
        String lastKey = null;
        for (int i : order) {
            KeyRange r = ranges.get(i);
            if (r.firstOffset() <= coveredUpTo) {
                overlaps.add(keys.get(i) + " overlaps " + lastKey);
            }
            if (!covered.isEmpty() && r.firstOffset() <= covered.get(covered.size() - 1).last() + 1) {
                Range prev = covered.remove(covered.size() - 1);
                covered.add(new Range(prev.first(), Math.max(prev.last(), r.lastOffset())));
            } else {
                covered.add(new Range(r.firstOffset(), r.lastOffset()));
            }
            if (r.lastOffset() > coveredUpTo) {
                coveredUpTo = r.lastOffset();
                lastKey = keys.get(i);
            }
        }
        List<Range> gaps = new ArrayList<>();
        long next = 0;
        for (Range r : covered) {
            if (next > committed) break;
            if (r.first() > next) gaps.add(new Range(next, Math.min(r.first() - 1, committed)));
            next = Math.max(next, r.last() + 1);
        }
        if (next <= committed) gaps.add(new Range(next, committed));
        return new PartitionAudit(p, committed, ranges.size(), covered, gaps, overlaps, mismatches, List.of(),
                List.of());
    }
}
