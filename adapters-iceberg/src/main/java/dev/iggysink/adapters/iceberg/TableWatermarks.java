package dev.iggysink.adapters.iceberg;

import dev.iggysink.application.port.out.TableStore;
import dev.iggysink.domain.completeness.Watermark;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;

/**
 * The watermark in snapshot summaries, beside the offset map and carried forward as it is ({@link OffsetMap}):
 * {@code iggy.complete-before.<group>.<stream>.<topic>} holds each partition's complete-before time in microseconds
 * ({@code {"0":1764939600000000,"1":...}}), and {@code iggy.watermark.<group>.<stream>.<topic>} the least of them over
 * the topic's partitions as an ISO-8601 instant, once every partition has one (the Iceberg Kafka Connect sink's
 * {@code valid-through-ts} for this group and topic).
 */
final class TableWatermarks {
    static final String WATERMARK = "iggy.watermark.";
    static final String COMPLETE_BEFORE = "iggy.complete-before.";
    private static final ObjectMapper JSON = JsonMapper.builder().build();

    private TableWatermarks() {
    }

    static String watermark(String group, String stream, String topic) {
        return WATERMARK + group + "." + stream + "." + topic;
    }

    static String completeBefore(String group, String stream, String topic) {
        return COMPLETE_BEFORE + group + "." + stream + "." + topic;
    }

    /**
     * {@code properties} with the times of {@code times} merged in, but those of {@code refused} partitions, and the
     * topic's watermark set again (removed while a partition has no time).
     */
    static Map<String, String> with(Map<String, String> properties, String group, TableStore.Times times,
                                    Set<Integer> refused) {
        Map<String, String> out = new HashMap<>(properties);
        String name = completeBefore(group, times.stream(), times.topic());
        Map<Integer, Long> updates = new HashMap<>(times.completeBefore());
        updates.keySet().removeAll(refused);
        Map<Integer, Long> merged = Watermark.merge(read(properties.get(name)), updates);
        ObjectNode node = JSON.createObjectNode();
        merged.forEach((id, micros) -> node.put(Integer.toString(id), micros));
        out.put(name, JSON.writeValueAsString(node));
        String wm = watermark(group, times.stream(), times.topic());
        OptionalLong least = Watermark.of(merged, times.partitions());
        if (least.isPresent()) out.put(wm, text(least.getAsLong()));
        else out.remove(wm);
        return out;
    }

    /** The watermark the properties state for the topic, in microseconds; empty when none. */
    static OptionalLong of(Map<String, String> properties, String group, String stream, String topic) {
        String value = properties.get(watermark(group, stream, topic));
        if (value == null) return OptionalLong.empty();
        return OptionalLong.of(ChronoUnit.MICROS.between(Instant.EPOCH, Instant.parse(value)));
    }

    static String text(long micros) {
        return Instant.EPOCH.plus(micros, ChronoUnit.MICROS).toString();
    }

    private static Map<Integer, Long> read(String value) {
        Map<Integer, Long> out = new TreeMap<>();
        if (value == null) return out;
        JSON.readTree(value).properties().forEach(e -> out.put(Integer.parseInt(e.getKey()), e.getValue().longValue()));
        return out;
    }
}
