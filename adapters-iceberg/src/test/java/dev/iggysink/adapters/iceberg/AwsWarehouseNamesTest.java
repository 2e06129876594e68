package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The warehouses AWS's Iceberg REST endpoints take are names, not locations: S3 Tables' table bucket ARN and Glue's
 * account id. Dead letters have no place there (as for any REST warehouse given by name) unless dlq_location is set.
 */
class AwsWarehouseNamesTest {
    private static CatalogSettings rest(String warehouse) {
        return new CatalogSettings("rest", "rest", "https://s3tables.us-east-1.amazonaws.com/iceberg", warehouse,
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), false);
    }

    @Test
    void an_s3_tables_bucket_arn_or_an_account_id_is_no_place_for_dead_letters() {
        assertThat(WarehouseFiles.of(rest("arn:aws:s3tables:us-east-1:111122223333:bucket/lake"))).isEmpty();
        assertThat(WarehouseFiles.of(rest("111122223333:s3tablescatalog/lake"))).isEmpty();
        assertThat(WarehouseFiles.of(rest("111122223333"))).isEmpty();
    }
}
