package dev.iggysink.bootstrap.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import org.apache.iceberg.aws.s3.S3FileIO;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A closed REST catalog leaves nothing for the collector to warn about, nor does one stopped and started again for an
 * outage: its server's backend catalog, left open, had its S3FileIO log "Unclosed S3FileIO instance" at WARN in
 * whichever test ran when the collector found it.
 */
class TableCatalogIT {

    @Test
    void a_closed_rest_catalog_restarted_once_leaves_no_unclosed_file_io() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger fileIoLog = (Logger) LoggerFactory.getLogger(S3FileIO.class);
        fileIoLog.addAppender(logs);
        try (E2eFixture fx = E2eFixture.shared()) {
            useRestartAndClose(fx);
            // Finalisers run after a collection finds the object unreachable; a few rounds make that all but certain.
            for (int round = 0; round < 5; round++) {
                System.gc();
                System.runFinalization();
            }
            assertThat(logs.list).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN))
                    .map(ILoggingEvent::getFormattedMessage)
                    .as("unclosed file IO created by this class's catalog")
                    .noneMatch(m -> m.contains(TableCatalogIT.class.getName()));
        } finally {
            fileIoLog.detachAppender(logs);
        }
    }

    /** In a method of its own so that nothing of the catalog is reachable once it returns. */
    private static void useRestartAndClose(E2eFixture fx) throws Exception {
        try (TableCatalog rest = TableCatalog.rest(fx)) {
            rest.createTable("lake.before", TableCatalog.clicksSchema());
            rest.stopServer();
            rest.restartServer();
            rest.createTable("lake.after", TableCatalog.clicksSchema());
            assertThat(rest.rows("lake.before") + rest.rows("lake.after")).isZero();
        }
    }
}
