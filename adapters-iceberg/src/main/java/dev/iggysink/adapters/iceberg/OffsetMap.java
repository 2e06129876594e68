package dev.iggysink.adapters.iceberg;

import dev.iggysink.domain.message.PartitionRef;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.LongFunction;
import org.apache.iceberg.Snapshot;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The offset map in snapshot summaries. One summary property per (consumer group, stream, topic),
 * {@code iggy.offsets.<group>.<stream>.<topic>}, whose value is a JSON object from partition id to the last offset
 * the table holds ({@code {"0":1234,"1":1240}}), as the Kafka Connect Iceberg sink keys its offsets by group and
 * topic. Every commit of this sink carries every such property of its parent forward and names itself in
 * {@code iggy.commit-id}, so the newest snapshot made by this sink holds the whole map; snapshots of other writers in
 * between (compaction, deletes) are looked through.
 */
final class OffsetMap {
    static final String PREFIX = "iggy.offsets.";
    static final String COMMIT_ID = "iggy.commit-id";
    /**
     * The dead letters (keys, one a line) whose records a redrive snapshot appended. Such a snapshot carries no map
     * and no commit id: the map is looked up through it, as through another writer's.
     */
    static final String REDRIVEN = "iggy.redriven";
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private OffsetMap() {
    }

    static String property(String group, PartitionRef p) {
        return PREFIX + group + "." + p.stream() + "." + p.topic();
    }

    /**
     * Every offset (and watermark) property as the newest snapshot of this sink left it, looking back from {@code current} through
     * snapshots of other writers; empty when the table has none.
     */
    static Map<String, String> properties(Snapshot current, LongFunction<Snapshot> byId) {
        Map<String, String> out = new HashMap<>();
        for (Snapshot s = current; s != null; s = s.parentId() == null ? null : byId.apply(s.parentId())) {
            Map<String, String> summary = s.summary();
            if (summary == null) continue;
            for (Map.Entry<String, String> e : summary.entrySet()) {
                if (e.getKey().startsWith(PREFIX) || e.getKey().startsWith(TableWatermarks.WATERMARK)
                        || e.getKey().startsWith(TableWatermarks.COMPLETE_BEFORE)) {
                    out.putIfAbsent(e.getKey(), e.getValue());
                }
            }
            if (summary.containsKey(COMMIT_ID)) break; // a commit of this sink carries the whole map
        }
        return out;
    }

    /** The entries of these partitions in {@code properties}; a partition the map does not name is absent. */
    static Map<PartitionRef, Long> offsets(Map<String, String> properties, String group,
                                           Collection<PartitionRef> partitions) {
        Map<PartitionRef, Long> out = new HashMap<>();
        for (PartitionRef p : partitions) {
            String value = properties.get(property(group, p));
            if (value == null) continue;
            JsonNode offset = JSON.readTree(value).get(Integer.toString(p.partitionId()));
            if (offset != null && offset.canConvertToLong()) out.put(p, offset.longValue());
        }
        return out;
    }

    /** {@code properties} with the entries of {@code updates} set. */
    static Map<String, String> with(Map<String, String> properties, String group, Map<PartitionRef, Long> updates) {
        Map<String, String> out = new HashMap<>(properties);
        Map<String, Map<Integer, Long>> byProperty = new HashMap<>();
        for (Map.Entry<PartitionRef, Long> u : updates.entrySet()) {
            String name = property(group, u.getKey());
            Map<Integer, Long> entries = byProperty.computeIfAbsent(name, n -> read(properties.get(n)));
            entries.put(u.getKey().partitionId(), u.getValue());
        }
        byProperty.forEach((name, entries) -> {
            ObjectNode node = JSON.createObjectNode();
            entries.forEach((id, offset) -> node.put(Integer.toString(id), offset));
            out.put(name, JSON.writeValueAsString(node));
        });
        return out;
    }

    private static Map<Integer, Long> read(String value) {
        Map<Integer, Long> out = new TreeMap<>();
        if (value == null) return out;
        JSON.readTree(value).properties().forEach(e -> out.put(Integer.parseInt(e.getKey()), e.getValue().longValue()));
        return out;
    }
}
