package dev.iggysink.testkit.s3;

import java.net.URI;
import java.time.Duration;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/** The assertion-side S3 client every server here hands out. */
final class S3Clients {
    private S3Clients() {
    }

    static S3Client create(URI endpoint, String region, String accessKey, String secretKey) {
        return S3Client.builder()
                .endpointOverride(endpoint)
                .region(Region.of(region))
                .forcePathStyle(true)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(accessKey, secretKey)))
                // S3-compatible servers do not all accept the SDK's default CRC trailers: checksums only when required.
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                // Named: the sink's adapters-s3 puts the HttpClient 4 client on the same class path.
                .httpClientBuilder(Apache5HttpClient.builder().connectionTimeout(Duration.ofSeconds(5)))
                // A fixture call must fail fast rather than hang a test run on a stuck server.
                .overrideConfiguration(o -> o.apiCallAttemptTimeout(Duration.ofSeconds(20)))
                .build();
    }
}
