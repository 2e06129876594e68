package dev.iggysink.adapters.iceberg;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.StoreException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/**
 * How a warehouse store's failure under Iceberg's FileIO is classified: a store that refuses (403, a missing bucket)
 * is not retried for ever, as the object sink's uploads are not; one that does not answer or answers 5xx is.
 */
class StoreFailureTest {
    private static RuntimeException wrapped(Throwable cause) {
        return new RuntimeException("Failed to write the data file", cause);
    }

    @Test
    void a_store_refusing_the_data_file_is_not_retried_and_says_its_status() {
        StoreException e = IcebergTables.failure("writing a data file of lake.events", wrapped(
                S3Exception.builder().statusCode(403).message("Access Denied").build()));
        assertThat(e.retryable()).isFalse();
        assertThat(e.httpStatus()).isEqualTo(403);
        assertThat(e.getMessage()).startsWith("writing a data file of lake.events failed: ");
    }

    @Test
    void a_store_that_does_not_answer_or_answers_503_is_retried() {
        assertThat(IcebergTables.failure("writing", wrapped(SdkClientException.create("Connection refused")))
                .retryable()).isTrue();
        assertThat(IcebergTables.failure("writing", wrapped(S3Exception.builder().statusCode(503)
                .message("Slow Down").build())).retryable()).isTrue();
    }
}
