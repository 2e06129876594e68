package dev.iggysink.adapters.s3.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.http.ContentStreamProvider;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;

class ChecksummedBodySignerTest {
    private static final byte[] BODY = "{\"a\":1}\n".getBytes(StandardCharsets.UTF_8);

    private final ChecksummedBodySigner signer = new ChecksummedBodySigner();
    private final AtomicInteger reads = new AtomicInteger();

    @Test
    void over_http_a_body_with_a_crc32c_goes_unsigned_without_being_read_and_is_sent_as_it_was() {
        for (String endpoint : new String[] {"http://store.local:9000", "http://store.local"}) {
            reads.set(0);
            SdkHttpRequest request = put(endpoint, true);

            SignedRequest signed = signer.sign(signRequest(request));

            assertThat(signed.request().firstMatchingHeader("x-amz-content-sha256")).contains("UNSIGNED-PAYLOAD");
            assertThat(signed.request().firstMatchingHeader("Authorization")).hasValueSatisfying(a ->
                    assertThat(a).contains("x-amz-checksum-crc32c"));
            assertThat(signed.request().protocol()).isEqualTo("http");
            assertThat(signed.request().port()).isEqualTo(request.port());
            assertThat(signed.request().firstMatchingHeader("Host"))
                    .as("the Host the HTTP client sends for %s", endpoint)
                    .contains(request.port() == 80 ? "store.local" : "store.local:9000");
            assertThat(reads).as("the body is not read to sign it").hasValue(0);
        }
    }

    @Test
    void a_body_without_a_crc32c_over_http_is_signed_with_its_sha256_as_the_sdk_does() {
        SdkHttpRequest request = put("http://store.local:9000", false);

        SignedRequest ours = signer.sign(signRequest(request));
        SignedRequest sdk = AwsV4HttpSigner.create().sign(signRequest(request));

        assertThat(ours.request().firstMatchingHeader("x-amz-content-sha256")).get().asString()
                .matches("[0-9a-f]{64}")
                .isEqualTo(sdk.request().firstMatchingHeader("x-amz-content-sha256").orElseThrow());
    }

    @Test
    void plain_http_on_port_443_keeps_payload_signing() {
        SignedRequest signed = signer.sign(signRequest(put("http://store.local:443", true)));

        assertThat(signed.request().firstMatchingHeader("x-amz-content-sha256")).get().asString()
                .matches("[0-9a-f]{64}");
    }

    @Test
    void over_https_nothing_changes() {
        SdkHttpRequest request = put("https://store.local", true);

        SignedRequest ours = signer.sign(signRequest(request));
        SignedRequest sdk = AwsV4HttpSigner.create().sign(signRequest(request));

        assertThat(ours.request().firstMatchingHeader("x-amz-content-sha256")).contains("UNSIGNED-PAYLOAD");
        assertThat(ours.request().headers()).isEqualTo(sdk.request().headers());
    }

    private SdkHttpRequest put(String endpoint, boolean crc32c) {
        SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.PUT)
                .uri(URI.create(endpoint + "/bucket/key.jsonl"))
                .putHeader("Content-Length", String.valueOf(BODY.length))
                // A fixed time, so that two signings of the same request give the same headers.
                .putHeader("x-amz-date", "20261201T100000Z");
        if (crc32c) b.putHeader(ChecksummedBodySigner.CHECKSUM_HEADER, "AAAAAA==");
        return b.build();
    }

    private SignRequest<AwsCredentialsIdentity> signRequest(SdkHttpRequest request) {
        ContentStreamProvider body = () -> {
            reads.incrementAndGet();
            return new ByteArrayInputStream(BODY);
        };
        return SignRequest.builder(AwsCredentialsIdentity.create("AKIDEXAMPLE", "not-a-real-secret"))
                .request(request)
                .payload(body)
                .putProperty(AwsV4HttpSigner.REGION_NAME, "us-east-1")
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                // As the S3 client asks: the SDK then signs the payload over http only.
                .putProperty(AwsV4HttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                .putProperty(AwsV4HttpSigner.SIGNING_CLOCK,
                        java.time.Clock.fixed(java.time.Instant.parse("2026-12-01T10:00:00Z"),
                                java.time.ZoneOffset.UTC))
                .build();
    }
}
