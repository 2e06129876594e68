package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.avro.util.Utf8;
import org.apache.iceberg.PartitionKey;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.data.GenericRecord;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

/**
 * {@link PartitionValues} must give every row the partition Iceberg's own {@link PartitionKey#partition} gives it,
 * for every transform the sink's templates name and on both sides of the epoch and of each day and hour.
 */
class PartitionValuesTest {
    private static final long HOUR = 3_600_000_000L;
    private static final long DAY = 24 * HOUR;
    private static final Schema SCHEMA = new Schema(
            Types.NestedField.required(1, "ts", Types.TimestampType.withZone()),
            Types.NestedField.optional(2, "local", Types.TimestampType.withoutZone()),
            Types.NestedField.optional(3, "d", Types.DateType.get()),
            Types.NestedField.optional(4, "user", Types.StringType.get()),
            Types.NestedField.optional(5, "n", Types.LongType.get()),
            Types.NestedField.optional(6, "k", Types.IntegerType.get()),
            Types.NestedField.optional(7, "inner", Types.StructType.of(
                    Types.NestedField.optional(8, "x", Types.LongType.get()))));

    private static final List<PartitionSpec> SPECS = List.of(
            PartitionSpec.builderFor(SCHEMA).day("ts").build(),
            PartitionSpec.builderFor(SCHEMA).hour("ts").identity("user").build(),
            PartitionSpec.builderFor(SCHEMA).day("local").month("ts").build(),
            PartitionSpec.builderFor(SCHEMA).hour("local").year("ts").build(),
            PartitionSpec.builderFor(SCHEMA).day("d").identity("d").build(),
            PartitionSpec.builderFor(SCHEMA).month("d").build(),
            PartitionSpec.builderFor(SCHEMA).year("d").build(),
            PartitionSpec.builderFor(SCHEMA).bucket("user", 16).truncate("user", 3).bucket("n", 7)
                    .truncate("k", 10).identity("n").identity("k").build(),
            PartitionSpec.builderFor(SCHEMA).identity("ts").day("ts").build());

    @Test
    void every_rows_partition_is_the_one_iceberg_gives_it() {
        Random random = new Random(49);
        List<GenericRecord> rows = new ArrayList<>();
        long[] edges = {0, -1, 1, DAY - 1, DAY, -DAY, -DAY - 1, -DAY + 1, HOUR - 1, HOUR, -HOUR, -HOUR - 1,
            1_764_583_200_000_000L, -62_135_596_800_000_000L, 253_402_300_799_999_999L};
        for (long edge : edges) rows.add(row(random, edge));
        for (int i = 0; i < 20_000; i++) {
            // about 600 years either side of the epoch, and often a few microseconds from a day's or hour's edge
            long ts = (random.nextLong() % (600 * 366 * DAY));
            if (random.nextInt(4) == 0) ts = ts / HOUR * HOUR + random.nextInt(5) - 2;
            rows.add(row(random, ts));
        }
        for (PartitionSpec spec : SPECS) {
            PartitionValues values = PartitionValues.of(spec, SCHEMA);
            assertThat(values).as(spec.toString()).isNotNull();
            PartitionKey expected = new PartitionKey(spec, SCHEMA);
            PartitionKey actual = new PartitionKey(spec, SCHEMA);
            for (GenericRecord row : rows) {
                expected.partition(row);
                values.fill(row, actual);
                assertThat(actual).as("%s of %s", spec, row).isEqualTo(expected);
                assertThat(actual.toPath()).isEqualTo(expected.toPath());
            }
        }
    }

    @Test
    void a_field_of_a_nested_column_is_left_to_iceberg() {
        PartitionSpec spec = PartitionSpec.builderFor(SCHEMA).day("ts").identity("inner.x").build();
        assertThat(PartitionValues.of(spec, SCHEMA)).isNull();
    }

    private static GenericRecord row(Random random, long ts) {
        GenericRecord row = GenericRecord.create(SCHEMA);
        row.set(0, ts);
        boolean nulls = random.nextInt(5) == 0;
        row.set(1, nulls ? null : ts + random.nextInt(1_000_000) - 500_000);
        row.set(2, nulls ? null : (int) Math.floorDiv(ts, DAY));
        row.set(3, nulls ? null : new Utf8("user-" + random.nextInt(50)));
        row.set(4, nulls ? null : random.nextLong());
        row.set(5, nulls ? null : random.nextInt());
        return row;
    }
}
