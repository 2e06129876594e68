package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The orphan step compares the locations the store lists with those the manifests name: two spellings of one file
 * must compare equal (else a committed file would look like an orphan), two files must not.
 */
class TableUpkeepTest {
    @Test
    void spellings_of_one_location_compare_equal() {
        assertThat(TableUpkeep.comparable("s3://lake/wh/t/data/a.parquet"))
                .isEqualTo(TableUpkeep.comparable("s3a://lake/wh/t/data/a.parquet"))
                .isEqualTo(TableUpkeep.comparable("s3://lake/wh//t/data/a.parquet"));
        assertThat(TableUpkeep.comparable("file:/var/lake/t/data/a.parquet"))
                .isEqualTo(TableUpkeep.comparable("file:///var/lake/t/data/a.parquet"))
                .isEqualTo(TableUpkeep.comparable("/var/lake/t/data/a.parquet"));
    }

    @Test
    void other_files_and_buckets_do_not() {
        assertThat(TableUpkeep.comparable("s3://lake/wh/t/data/a.parquet"))
                .isNotEqualTo(TableUpkeep.comparable("s3://lake/wh/t/data/b.parquet"))
                .isNotEqualTo(TableUpkeep.comparable("s3://other/wh/t/data/a.parquet"));
        // a colon after the first slash is part of the path, not a scheme
        assertThat(TableUpkeep.comparable("/var/lake/x:y/a.parquet")).isEqualTo("var/lake/x:y/a.parquet");
    }
}
