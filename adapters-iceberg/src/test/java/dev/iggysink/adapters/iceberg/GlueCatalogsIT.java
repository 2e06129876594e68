package dev.iggysink.adapters.iceberg;

import java.nio.file.Path;
import java.util.List;

/**
 * Iceberg's own commit protocol ({@link CatalogsIT}) on a Glue catalog (moto's server, data on MinIO): an append
 * with the offset map read back, a stale handle rebased, and a commit that loses the race in the catalog retried or,
 * without retries, refused.
 */
class GlueCatalogsIT extends CatalogsIT {
    @Override
    String purpose() {
        return "glue-catalogs";
    }

    @Override
    List<CatalogFixture> fixtures(MinioWarehouse warehouse, Path dir) {
        return List.of(CatalogFixture.glue(warehouse));
    }
}
