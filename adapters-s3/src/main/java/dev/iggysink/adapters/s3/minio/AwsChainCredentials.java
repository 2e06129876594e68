package dev.iggysink.adapters.s3.minio;

import dev.iggysink.adapters.s3.credentials.AwsCredentialChain;
import io.minio.credentials.Credentials;
import io.minio.credentials.Provider;
import software.amazon.awssdk.identity.spi.AwsCredentialsIdentity;
import software.amazon.awssdk.identity.spi.AwsSessionCredentialsIdentity;

/**
 * The sink's AWS credentials chain ({@link AwsCredentialChain}: key pair, profile, environment, web identity, shared
 * files, container, instance, and an assumed role on top) behind MinIO's {@link Provider}, so both adapters find
 * credentials in the same places in the same order. The MinIO client calls {@link #fetch()} for every request; the
 * chain caches temporary credentials and renews them before they expire, so no expiry is passed on.
 */
final class AwsChainCredentials implements Provider, AutoCloseable {
    private final AwsCredentialChain chain;

    AwsChainCredentials(AwsCredentialChain chain) {
        this.chain = chain;
    }

    /**
     * No credentials could be had (none found, STS refused or unreachable): thrown out of the MinIO client's call
     * before any request is sent, and turned into the store's failure by {@link MinioObjectStore}.
     */
    static final class Unavailable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unavailable(RuntimeException cause) {
            super(cause.getMessage(), cause);
        }
    }

    @Override
    public Credentials fetch() {
        AwsCredentialsIdentity identity;
        try {
            identity = chain.resolveCredentials();
        } catch (RuntimeException e) {
            throw new Unavailable(e);
        }
        String token = identity instanceof AwsSessionCredentialsIdentity session ? session.sessionToken() : null;
        return new Credentials(identity.accessKeyId(), identity.secretAccessKey(), token, null);
    }

    @Override
    public void close() {
        chain.close();
    }

    @Override
    public String toString() {
        return "AwsChainCredentials[" + chain.description() + "]";
    }
}
