package dev.iggysink.adapters.s3;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.port.out.ObjectStore;

/**
 * The contract's answer for a store that ignores {@code If-None-Match}, on the fake made to ignore it: every real
 * store here honours the condition, and what the sink's start-up check relies on for one that does not must hold.
 */
class InMemoryObjectStoreIgnoringConditionsTest extends ObjectStoreContract {
    private final InMemoryObjectStore store = new InMemoryObjectStore().ignoringConditions();

    @Override
    protected boolean honoursConditionalWrites() {
        return false;
    }

    @Override
    protected ObjectStore store() {
        return store;
    }

    @Override
    protected ObjectStore storeWithWrongSecret() {
        return InMemoryObjectStore.denying();
    }

    @Override
    protected String wrongSecret() {
        return "not-a-secret-the-fake-ever-sees";
    }

    @Override
    protected ObjectStore storeOnMissingBucket() {
        return InMemoryObjectStore.missingBucket(missingBucketName());
    }

    @Override
    protected String missingBucketName() {
        return "no-such-bucket";
    }
}
