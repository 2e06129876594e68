package dev.iggysink.adapters.s3.minio;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.util.concurrent.CompletableFuture;

import com.google.common.collect.Multimap;

import io.minio.MinioAsyncClient;
import io.minio.ObjectWriteResponse;
import io.minio.errors.MinioException;

/**
 * Opens the one protected call the sink needs: a single PutObject from a byte array of known length. The public
 * {@code putObject(PutObjectArgs)} takes a stream and copies it into its own part buffers; this sends the caller's
 * array as is. Subclassing through the copy constructor is how the MinIO client itself layers its sync API.
 */
@SuppressWarnings("try") // MinIO's S3Base declares close() throws Exception; MinioObjectStore releases the client
final class SinkMinioClient extends MinioAsyncClient {
    SinkMinioClient(MinioAsyncClient configured) {
        super(configured);
    }

    CompletableFuture<ObjectWriteResponse> putBytes(String bucket, String region, String key, byte[] content,
                                                    Multimap<String, String> headers)
            throws MinioException, GeneralSecurityException, IOException {
        return putObjectAsync(bucket, region, key, content, content.length, headers, null);
    }
}
