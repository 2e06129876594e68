package dev.iggysink.adapters.s3;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.testkit.s3.S3ProxyServer;

/** The contract on s3proxy in this JVM: fast, no binary needed, SigV4 checked. Runs with the unit tests. */
abstract class S3ProxyContract extends ObjectStoreContract {
    private S3ProxyServer server;
    private ObjectStore store;
    private ObjectStore wrongSecret;
    private ObjectStore missingBucket;
    private final String missing = TestStores.bucketName("missing");

    protected abstract StorageClient client();

    @BeforeAll
    void startServer() {
        server = S3ProxyServer.inMemory();
        String bucket = TestStores.bucketName("contract");
        server.createBucket(bucket);
        store = ObjectStores.create(TestStores.settings(client(), server.endpoint(), bucket, server.accessKey(),
                server.secretKey()));
        wrongSecret = ObjectStores.create(TestStores.settings(client(), server.endpoint(), bucket,
                server.accessKey(), wrongSecret()));
        missingBucket = ObjectStores.create(TestStores.settings(client(), server.endpoint(), missing,
                server.accessKey(), server.secretKey()));
    }

    @AfterAll
    void stopServer() {
        store.close();
        wrongSecret.close();
        missingBucket.close();
        server.close();
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Override
    protected ObjectStore storeWithWrongSecret() {
        return wrongSecret;
    }

    @Override
    protected String wrongSecret() {
        return "wrong-secret-s3proxy-0123456789";
    }

    @Override
    protected ObjectStore storeOnMissingBucket() {
        return missingBucket;
    }

    @Override
    protected String missingBucketName() {
        return missing;
    }

    /** s3proxy compares If-Match with the object's ETag, then writes: two replaces of one version may both pass. */
    @Override
    protected boolean replacesAtomically() {
        return false;
    }
}
