package dev.iggysink.benchmarks;

import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;

/** The schema of the table benches' rows: the sink's three Iggy columns and the bench's JSON fields. */
public final class BenchTable {
    private BenchTable() {
    }

    public static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "iggy_offset", Types.LongType.get()),
            Types.NestedField.required(2, "iggy_partition_id", Types.IntegerType.get()),
            Types.NestedField.required(3, "iggy_timestamp", Types.TimestampType.withZone()),
            Types.NestedField.required(4, "id", Types.LongType.get()),
            Types.NestedField.optional(5, "level", Types.StringType.get()),
            Types.NestedField.optional(6, "user", Types.StringType.get()),
            Types.NestedField.optional(7, "latency_ms", Types.DoubleType.get()),
            Types.NestedField.optional(8, "msg", Types.StringType.get()));
}
