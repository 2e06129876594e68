package dev.iggysink.adapters.filesystem;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import dev.iggysink.adapters.s3.ObjectStoreContract;
import dev.iggysink.application.port.out.ObjectStore;

/**
 * The S3 adapters' contract on a directory. "Wrong secret" is a root the sink may not write (made so for real, see
 * {@link Provoke#denyWrites}); "missing bucket" is a root directory that does not exist.
 */
class DirectoryObjectStoreContractTest extends ObjectStoreContract {
    @TempDir
    static Path tmp;
    private ObjectStore store;
    private ObjectStore denied;
    private ObjectStore missing;
    private Provoke.Undo undoDenial;

    @BeforeAll
    void createStores() throws Exception {
        Path root = Files.createDirectory(tmp.resolve("lake"));
        Path readOnly = Files.createDirectory(tmp.resolve("read-only"));
        undoDenial = Provoke.denyWrites(readOnly);
        store = new DirectoryObjectStore(root);
        denied = new DirectoryObjectStore(readOnly);
        missing = new DirectoryObjectStore(tmp.resolve("not-there"));
    }

    @AfterAll
    void allowWritesAgain() throws Exception {
        if (undoDenial != null) undoDenial.close();
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Override
    protected ObjectStore storeWithWrongSecret() {
        return denied;
    }

    @Override
    protected String wrongSecret() {
        return "a-directory-store-has-no-secret";
    }

    @Override
    protected ObjectStore storeOnMissingBucket() {
        return missing;
    }

    @Override
    protected String missingBucketName() {
        return tmp.resolve("not-there").toAbsolutePath().normalize().toString();
    }

    @Override
    protected String doesNotCreateTheBucket() {
        return "does not create its root directory";
    }
}
