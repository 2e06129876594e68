package dev.iggysink.testkit.s3;

import java.net.URI;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;

import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.FilesystemNio2BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;

import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.BucketAlreadyOwnedByYouException;

/**
 * s3proxy inside this JVM, on 127.0.0.1 and a free port, checking SigV4 against its own key pair. Starts in
 * milliseconds and needs no binary, so unit-level suites use it; what it cannot do (CRT multipart, part-number GETs,
 * SSE) is tested on {@link MinioServer}.
 */
public final class S3ProxyServer implements AutoCloseable {
    private static final String REGION = "us-east-1";

    private final S3Proxy proxy;
    private final URI endpoint;
    private final String accessKey;
    private final String secretKey;
    private S3Client client;

    private S3ProxyServer(BlobStore store) {
        this.accessKey = "proxy-" + HexFormat.of().formatHex(random(4));
        this.secretKey = "secret-" + HexFormat.of().formatHex(random(12));
        this.proxy = S3Proxy.builder()
                .blobStore(store)
                .endpoint(URI.create("http://127.0.0.1:0"))
                .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, accessKey, secretKey)
                // The SDK's multipart client sends x-amz-mp-object-size; without this s3proxy answers 501.
                .ignoreUnknownHeaders(true)
                .build();
        try {
            proxy.start();
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!"STARTED".equals(proxy.getState())) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("s3proxy did not start: " + proxy.getState());
                }
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while starting s3proxy", e);
        } catch (RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("s3proxy failed to start", e);
        }
        this.endpoint = URI.create("http://127.0.0.1:" + proxy.getPort());
    }

    /** Objects live in memory and vanish with {@link #close()}. */
    public static S3ProxyServer inMemory() {
        return new S3ProxyServer(new TransientNio2BlobStore());
    }

    /** Buckets are directories under {@code root}, objects are files; they outlive the server. */
    public static S3ProxyServer onDirectory(Path root) {
        return new S3ProxyServer(new FilesystemNio2BlobStore(root.toAbsolutePath().toString()));
    }

    public URI endpoint() {
        return endpoint;
    }

    public String accessKey() {
        return accessKey;
    }

    public String secretKey() {
        return secretKey;
    }

    public String region() {
        return REGION;
    }

    public void createBucket(String bucket) {
        try {
            client().createBucket(b -> b.bucket(bucket));
        } catch (BucketAlreadyOwnedByYouException e) {
            // already there: fine for a test fixture
        }
    }

    /** An AWS SDK client for setting up and asserting. Owned by this server. */
    public synchronized S3Client client() {
        if (client == null) {
            client = S3Clients.create(endpoint, REGION, accessKey, secretKey);
        }
        return client;
    }

    @Override
    public synchronized void close() {
        if (client != null) {
            client.close();
            client = null;
        }
        try {
            proxy.stop();
        } catch (Exception e) {
            throw new IllegalStateException("s3proxy failed to stop", e);
        }
    }

    @Override
    public String toString() {
        return "S3ProxyServer[" + endpoint + "]";
    }

    private static byte[] random(int n) {
        byte[] bytes = new byte[n];
        new SecureRandom().nextBytes(bytes);
        return bytes;
    }
}
