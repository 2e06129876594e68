package dev.iggysink.adapters.s3.minio;

import io.minio.credentials.Credentials;
import io.minio.credentials.Provider;

import software.amazon.awssdk.auth.credentials.DefaultCredentialsProvider;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;

/**
 * The AWS SDK's default credentials chain behind MinIO's {@link Provider}: system properties, environment
 * ({@code AWS_ACCESS_KEY_ID}, ...), web identity, the shared files honouring {@code AWS_PROFILE}, ECS container,
 * EC2 IMDS. Using the AWS chain (rather than MinIO's own providers) gives both adapters one answer to "where do
 * credentials come from". The MinIO client calls {@link #fetch()} for every request; the AWS chain caches and
 * refreshes temporary credentials itself, so no expiry is passed on.
 */
final class AwsChainCredentials implements Provider, AutoCloseable {
    private final DefaultCredentialsProvider chain = DefaultCredentialsProvider.builder().build();

    @Override
    public Credentials fetch() {
        AwsCredentialsIdentity identity = chain.resolveCredentials();
        String token = identity instanceof AwsSessionCredentialsIdentity session ? session.sessionToken() : null;
        return new Credentials(identity.accessKeyId(), identity.secretAccessKey(), token, null);
    }

    @Override
    public void close() {
        chain.close();
    }

    @Override
    public String toString() {
        return "AwsChainCredentials";
    }
}
