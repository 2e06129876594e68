package dev.iggysink.bootstrap.e2e;

import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** An end-to-end test of the table sink on the zero-install catalog (JDBC on SQLite, warehouse on MinIO). */
abstract class SqliteTableTest extends E2eTest {
    TableCatalog catalog;

    /** The tables the test's sink writes to, made before each test. */
    abstract void createTables(TableCatalog catalog);

    @BeforeEach
    void openCatalog() {
        catalog = TableCatalog.sqlite(fx);
        createTables(catalog);
    }

    @AfterEach
    void closeCatalog() throws IOException {
        if (catalog != null) catalog.close();
    }
}
