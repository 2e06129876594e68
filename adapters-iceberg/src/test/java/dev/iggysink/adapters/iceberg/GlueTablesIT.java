package dev.iggysink.adapters.iceberg;

import java.nio.file.Path;
import java.util.List;

/**
 * The table store's tests ({@link IcebergTablesIT}) on a Glue catalog: Iceberg's GlueCatalog on moto's server through
 * the sink's own Glue client, data on MinIO. Rows read back with Iceberg's reader, the offset map, a member racing
 * another on the catalog, and table creation by two members at once, as on the other catalogs.
 */
class GlueTablesIT extends IcebergTablesIT {
    @Override
    String purpose() {
        return "glue-tables";
    }

    @Override
    List<CatalogFixture> fixtures(MinioWarehouse warehouse, Path dir) {
        return List.of(CatalogFixture.glue(warehouse));
    }
}
