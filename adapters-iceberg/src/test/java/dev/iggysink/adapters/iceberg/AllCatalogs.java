package dev.iggysink.adapters.iceberg;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test class run against each catalog the table sink supports: the REST catalog server, JDBC on SQLite and JDBC on
 * PostgreSQL, all with their warehouse in one new MinIO bucket. Parameterised tests take {@code catalogs()}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AllCatalogs {
    private final List<CatalogFixture> fixtures = new ArrayList<>();

    /** Names the bucket, for whoever reads MinIO's data directory. */
    abstract String purpose();

    @BeforeAll
    void startCatalogs(@TempDir Path dir) {
        fixtures.addAll(fixtures(MinioWarehouse.create(purpose()), dir));
    }

    /** The catalogs the class runs against; a subclass for other catalogs names its own. */
    List<CatalogFixture> fixtures(MinioWarehouse warehouse, Path dir) {
        return List.of(CatalogFixture.rest(warehouse, dir), CatalogFixture.sqlite(warehouse, dir),
                CatalogFixture.postgres(warehouse));
    }

    @AfterAll
    void closeCatalogs() {
        fixtures.forEach(CatalogFixture::close);
    }

    Stream<CatalogFixture> catalogs() {
        return fixtures.stream();
    }
}
