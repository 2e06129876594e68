package dev.iggysink.adapters.s3;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

import dev.iggysink.application.fakes.InMemoryObjectStore;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;

class InMemoryObjectStoreTest extends ObjectStoreContract {
    private final InMemoryObjectStore store = newStore();

    /** The fake under the contract; a subclass may configure it otherwise. */
    protected InMemoryObjectStore newStore() {
        return new InMemoryObjectStore();
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

    @Test
    void scripted_failures_are_thrown_in_order_and_store_nothing() throws Exception {
        InMemoryObjectStore fake = new InMemoryObjectStore()
                .failNext(new StoreException("503", true, 503, null, null));

        assertThatThrownBy(() -> fake.put("k", new byte[] {1}, "text/plain"))
                .isInstanceOfSatisfying(StoreException.class, e -> assertThat(e.httpStatus()).isEqualTo(503));
        assertThat(fake.list("")).isEmpty();

        fake.put("k", new byte[] {1}, "text/plain");
        assertThat(fake.get("k")).containsExactly(1);
        assertThat(fake.putAttempts()).isEqualTo(2);
        assertThat(fake.contentType("k")).isEqualTo("text/plain");
    }

    @Test
    void the_fake_keeps_its_own_copy_of_the_bytes() throws Exception {
        byte[] content = {1, 2, 3};
        InMemoryObjectStore fake = new InMemoryObjectStore();
        fake.put("k", content, "text/plain");
        content[0] = 9;

        assertThat(fake.get("k")).containsExactly(1, 2, 3);
    }
}
