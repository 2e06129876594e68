package dev.iggysink.bootstrap.e2e;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/** An end-to-end test on the shared scene (Iggy, MinIO, a fresh stream and bucket per test). */
abstract class E2eTest {
    E2eFixture fx;

    @BeforeEach
    void openFixture() throws Exception {
        fx = E2eFixture.shared();
    }

    @AfterEach
    void closeFixture() {
        fx.close();
    }
}
