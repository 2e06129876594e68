package dev.iggysink.adapters.s3.aws;

import java.util.concurrent.CompletableFuture;

import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.scheme.AwsV4AuthScheme;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignRequest;
import software.amazon.awssdk.http.auth.spi.signer.AsyncSignedRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignRequest;
import software.amazon.awssdk.http.auth.spi.signer.SignedRequest;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.IdentityProvider;
import software.amazon.awssdk.identity.spi.IdentityProviders;

/**
 * SigV4 as the SDK signs, except that over plain http a request body that carries an {@code x-amz-checksum-crc32c}
 * header goes as {@code UNSIGNED-PAYLOAD}, as the SDK sends every body over https.
 *
 * <p>Why: over http the SDK always puts the body's SHA-256 into the signature, which means reading the whole body
 * once before sending it and hashing it, and the store hashes it again to check. A CRC32C the store verifies (the
 * adapter computes it at a fraction of the cost; figures: docs/adr/0006-crc32c-instead-of-a-signed-body-over-http.md)
 * still catches a body damaged on the way; what it does not give is the signature's proof against someone on the
 * network who rewrites the body and its checksum together, which plain http does not protect from anyway (they can
 * read everything). A request without that header (multipart parts, the startup probe's empty body) is signed as
 * before.
 *
 * <p>How: the signer decides on payload signing from the request's scheme alone, and the scheme is not part of
 * what SigV4 signs (method, path, query, headers, body hash), so the request is signed as if it went over https
 * and then sent as it was. Port 80 becomes 443 for the signing so that the Host header the signer computes (no port
 * for a scheme's standard port) is the one the HTTP client sends; a plain-http endpoint on port 443 keeps payload
 * signing.
 */
final class ChecksummedBodySigner implements AwsV4HttpSigner {
    static final String CHECKSUM_HEADER = "x-amz-checksum-crc32c";

    private final AwsV4HttpSigner sdk = AwsV4HttpSigner.create();

    /** The SDK's SigV4 scheme with this signer; registered on the client under the same scheme id. */
    static AwsV4AuthScheme scheme() {
        AwsV4AuthScheme sdkScheme = AwsV4AuthScheme.create();
        ChecksummedBodySigner signer = new ChecksummedBodySigner();
        return new AwsV4AuthScheme() {
            @Override
            public String schemeId() {
                return sdkScheme.schemeId();
            }

            @Override
            public IdentityProvider<AwsCredentialsIdentity> identityProvider(IdentityProviders providers) {
                return sdkScheme.identityProvider(providers);
            }

            @Override
            public AwsV4HttpSigner signer() {
                return signer;
            }
        };
    }

    @Override
    public SignedRequest sign(SignRequest<? extends AwsCredentialsIdentity> request) {
        SdkHttpRequest http = request.request();
        boolean unsigned = "http".equals(http.protocol()) && http.port() != 443 && request.payload().isPresent()
                && http.firstMatchingHeader(CHECKSUM_HEADER).isPresent();
        return unsigned ? signAsHttps(request, http) : sdk.sign(request);
    }

    private <T extends AwsCredentialsIdentity> SignedRequest signAsHttps(SignRequest<T> request, SdkHttpRequest http) {
        SdkHttpRequest https = http.toBuilder().protocol("https").port(http.port() == 80 ? 443 : http.port()).build();
        SignedRequest signed = sdk.sign(request.copy(b -> b.request(https)
                .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false)));
        SdkHttpRequest back = signed.request().toBuilder().protocol(http.protocol()).port(http.port()).build();
        return signed.copy(b -> b.request(back));
    }

    @Override
    public CompletableFuture<AsyncSignedRequest> signAsync(AsyncSignRequest<? extends AwsCredentialsIdentity> request) {
        // The sink's S3 client is synchronous; an async caller gets the SDK's signing unchanged.
        return sdk.signAsync(request);
    }
}
