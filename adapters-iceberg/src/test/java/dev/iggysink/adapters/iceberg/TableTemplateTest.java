package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.Schema;
import org.apache.iceberg.types.Types;
import org.junit.jupiter.api.Test;

class TableTemplateTest {

    @Test
    void the_iggy_columns_come_first_then_the_configured_ones_partitioned_as_asked() {
        TableTemplate t = new TableTemplate(List.of("user string required", "amount decimal(10,2)",
                "country string", "code string"), List.of("day(iggy_timestamp)", "identity(country)",
                "bucket(16, user)", "truncate(2, code)"));
        assertThat(t.problems()).isEmpty();
        Schema schema = t.schema();
        assertThat(schema.columns()).extracting(Types.NestedField::name).containsExactly("iggy_offset",
                "iggy_partition_id", "iggy_timestamp", "user", "amount", "country", "code");
        assertThat(schema.findField("user").isRequired()).isTrue();
        assertThat(schema.findField("amount").type()).isEqualTo(Types.DecimalType.of(10, 2));
        assertThat(schema.findField("amount").isOptional()).isTrue();
        PartitionSpec spec = t.spec(schema);
        assertThat(spec.fields()).extracting(f -> f.transform().toString())
                .containsExactly("day", "identity", "bucket[16]", "truncate[2]");
    }

    @Test
    void every_bad_entry_is_reported_at_once_with_its_index() {
        TableTemplate t = new TableTemplate(List.of("user", "n integer", "iggy_offset long", "ok long"),
                List.of("week(ok)", "bucket(ok)", "identity(nowhere)", "day(iggy_timestamp)"));
        assertThat(t.problems()).hasSize(6).anySatisfy(p -> assertThat(p).startsWith("table_columns[0]"))
                .anySatisfy(p -> assertThat(p).startsWith("table_columns[1]").contains("\"integer\" is not"))
                .anySatisfy(p -> assertThat(p).startsWith("table_columns[2]").contains("there already"))
                .anySatisfy(p -> assertThat(p).startsWith("partition_spec[0]"))
                .anySatisfy(p -> assertThat(p).startsWith("partition_spec[1]").contains("needs a number"))
                .anySatisfy(p -> assertThat(p).startsWith("partition_spec[2]").contains("no column nowhere"));
    }

    @Test
    void a_transform_the_column_type_does_not_take_is_a_bad_entry_beside_the_others() {
        TableTemplate t = new TableTemplate(List.of("ts_millis long", "user string", "day_of date"),
                List.of("day(ts_millis)", "hour(day_of)", "truncate(4, ts_millis)", "identity(nowhere)",
                        "bucket(8, user)"));
        assertThat(t.problems()).hasSize(3)
                .anySatisfy(p -> assertThat(p).startsWith("partition_spec[0]: day(ts_millis)")
                        .contains("column ts_millis is long").contains("date, timestamp or timestamptz"))
                .anySatisfy(p -> assertThat(p).startsWith("partition_spec[1]: hour(day_of)")
                        .contains("column day_of is date").contains("timestamp or timestamptz"))
                .anySatisfy(p -> assertThat(p).startsWith("partition_spec[3]").contains("no column nowhere"));
    }
}
