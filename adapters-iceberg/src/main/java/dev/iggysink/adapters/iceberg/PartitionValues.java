package dev.iggysink.adapters.iceberg;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.apache.iceberg.PartitionField;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.StructLike;
import org.apache.iceberg.types.Type;
import org.apache.iceberg.types.Types;

/**
 * Fills a row's {@link PartitionKey} when every field of the spec takes a top-level column: {@code day} and
 * {@code hour} of a timestamp as a division of its microseconds, every other transform by Iceberg's own function,
 * bound once.
 *
 * <p>Why: Iceberg's {@code day} and {@code hour} of a timestamp go through an {@code OffsetDateTime} per value, and
 * {@code PartitionKey.partition} through accessors and a wrapper per row: together 7 % of the table sink's CPU at
 * 100 B records (docs/performance.md). The values are the same as Iceberg's (floor division of microseconds since
 * the epoch; {@code PartitionValuesTest} compares them over drawn and edge values, before 1970 too).
 */
final class PartitionValues {
    private static final long MICROS_PER_HOUR = 3_600_000_000L;
    private static final long MICROS_PER_DAY = 24 * MICROS_PER_HOUR;

    private final int[] positions;
    private final List<Function<Object, Object>> transforms;

    private PartitionValues(int[] positions, List<Function<Object, Object>> transforms) {
        this.positions = positions;
        this.transforms = transforms;
    }

    /** For rows of {@code schema} under {@code spec}; null when a field takes a nested column (Iceberg's way then). */
    @SuppressWarnings("unchecked")
    static PartitionValues of(PartitionSpec spec, Schema schema) {
        List<Types.NestedField> columns = schema.columns();
        List<PartitionField> fields = spec.fields();
        int[] positions = new int[fields.size()];
        List<Function<Object, Object>> transforms = new ArrayList<>(fields.size());
        for (int i = 0; i < fields.size(); i++) {
            PartitionField f = fields.get(i);
            int at = -1;
            for (int c = 0; c < columns.size(); c++) {
                if (columns.get(c).fieldId() == f.sourceId()) at = c;
            }
            if (at < 0) return null;
            positions[i] = at;
            Type type = columns.get(at).type();
            String transform = f.transform().toString();
            boolean timestamp = type.typeId() == Type.TypeID.TIMESTAMP;
            if (timestamp && transform.equals("day")) {
                transforms.add(v -> v == null ? null : (Object) (int) Math.floorDiv((Long) v, MICROS_PER_DAY));
            } else if (timestamp && transform.equals("hour")) {
                transforms.add(v -> v == null ? null : (Object) (int) Math.floorDiv((Long) v, MICROS_PER_HOUR));
            } else if (transform.equals("identity")) {
                transforms.add(v -> v);
            } else {
                transforms.add((Function<Object, Object>) (Function<?, ?>) f.transform().bind(type));
            }
        }
        return new PartitionValues(positions, transforms);
    }

    /** Sets {@code key} to the partition of {@code row}, as {@link PartitionKey#partition} would. */
    void fill(StructLike row, PartitionKey key) {
        for (int i = 0; i < positions.length; i++) {
            key.set(i, transforms.get(i).apply(row.get(positions[i], Object.class)));
        }
    }
}
