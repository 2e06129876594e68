package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.Path;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.apache.iceberg.catalog.Catalog;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.SupportsNamespaces;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * A closed fixture leaves nothing for the collector to warn about. A REST fixture once left its server's backend
 * catalog open; its S3FileIO then logged "Unclosed S3FileIO instance" at WARN in whichever test ran when the
 * collector found it, and that test's "nothing at WARN" check failed for a reason of another class.
 */
class CatalogFixtureIT {

    @Test
    void a_closed_rest_fixture_leaves_no_unclosed_file_io(@TempDir Path dir) throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger fileIoLog = (Logger) LoggerFactory.getLogger(S3FileIO.class);
        fileIoLog.addAppender(logs);
        try {
            useAndClose(dir);
            // Finalisers run after a collection finds the object unreachable; a few rounds make that all but certain.
            for (int round = 0; round < 5; round++) {
                System.gc();
                System.runFinalization();
            }
            assertThat(logs.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                    .map(ILoggingEvent::getFormattedMessage)
                    .as("unclosed file IO created by this class's fixture")
                    .noneMatch(m -> m.contains(CatalogFixtureIT.class.getName()));
        } finally {
            fileIoLog.detachAppender(logs);
        }
    }

    /** In a method of its own so that nothing of the fixture is reachable once it returns. */
    private static void useAndClose(Path dir) {
        CatalogFixture rest = CatalogFixture.rest(MinioWarehouse.create("fixture"), dir);
        Catalog client = rest.newClient();
        ((SupportsNamespaces) client).createNamespace(Namespace.of("lake"));
        rest.close();
    }
}
