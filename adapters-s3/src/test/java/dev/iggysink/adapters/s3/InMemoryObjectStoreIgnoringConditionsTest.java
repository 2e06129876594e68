package dev.iggysink.adapters.s3;

import dev.iggysink.application.fakes.InMemoryObjectStore;

/**
 * The contract's answer for a store that ignores {@code If-None-Match}, on the fake made to ignore it: every real
 * store here honours the condition, and what the sink's start-up check relies on for one that does not must hold.
 */
class InMemoryObjectStoreIgnoringConditionsTest extends InMemoryObjectStoreTest {
    @Override
    protected InMemoryObjectStore newStore() {
        return new InMemoryObjectStore().ignoringConditions();
    }

    @Override
    protected boolean honoursConditionalWrites() {
        return false;
    }
}
