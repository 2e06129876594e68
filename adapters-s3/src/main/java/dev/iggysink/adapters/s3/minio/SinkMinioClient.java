package dev.iggysink.adapters.s3.minio;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import com.google.common.collect.LinkedListMultimap;
import com.google.common.collect.Multimap;

import dev.iggysink.application.file.FileBytes;

import io.minio.MinioAsyncClient;
import io.minio.Signer;
import io.minio.credentials.Credentials;
import io.minio.errors.InsufficientDataException;
import io.minio.errors.InternalException;
import io.minio.errors.MinioException;
import io.minio.http.HttpUtils;
import io.minio.http.Method;
import okhttp3.Headers;
import okhttp3.HttpUrl;
import okhttp3.MediaType;
import okhttp3.Request;
import okhttp3.RequestBody;
import okio.BufferedSink;

/**
 * Sends a sealed file, or a slice of it for a multipart part, as the encoder left it. The public client takes a
 * {@code byte[]} (which the file is not: it is a run of chunks) or a stream, which it copies into part buffers of
 * its own; either way a second copy of the file. Here the request body is the file itself: the client builds the
 * request's headers as for an empty body ({@link #createRequest} is its protected hook, and subclassing through the
 * copy constructor is how the MinIO client itself layers its sync API), then the body, its Content-MD5 and (over
 * http) its SHA-256 are set from the chunks, and the request is signed as the client signs its own.
 */
@SuppressWarnings("try") // MinIO's S3Base declares close() throws Exception; MinioObjectStore releases the client
final class SinkMinioClient extends MinioAsyncClient {
    SinkMinioClient(MinioAsyncClient configured) {
        super(configured);
    }

    /** One PutObject of the whole file; completes with the object's ETag. */
    CompletableFuture<String> putFile(String bucket, String region, String key, FileBytes content,
                                      Multimap<String, String> headers)
            throws MinioException, GeneralSecurityException, IOException {
        return send(bucket, region, key, content, headers, null);
    }

    /** One DeleteObjects request in quiet mode: its answer lists only the keys not deleted. */
    CompletableFuture<io.minio.DeleteObjectsResponse> deleteKeys(String bucket, String region, List<String> keys)
            throws MinioException, GeneralSecurityException, IOException {
        List<io.minio.messages.DeleteObject> objects = new java.util.ArrayList<>(keys.size());
        for (String key : keys) objects.add(new io.minio.messages.DeleteObject(key));
        return deleteObjectsAsync(bucket, region, objects, true, false, LinkedListMultimap.create(),
                LinkedListMultimap.create());
    }

    /** One UploadPart of a slice of the file; completes with the part's ETag. */
    CompletableFuture<String> uploadFilePart(String bucket, String region, String key, FileBytes part,
                                             String uploadId, int partNumber, Multimap<String, String> headers)
            throws MinioException, GeneralSecurityException, IOException {
        Multimap<String, String> query = LinkedListMultimap.create();
        query.put("partNumber", Integer.toString(partNumber));
        query.put("uploadId", uploadId);
        return send(bucket, region, key, part, headers, query);
    }

    private CompletableFuture<String> send(String bucket, String region, String key, FileBytes content,
                                           Multimap<String, String> headers, Multimap<String, String> query)
            throws MinioException, GeneralSecurityException, IOException {
        // A file is one encoder buffer, which stops at 2 GiB.
        int length = Math.toIntExact(content.length());
        FileBody body = new FileBody(content, headers.get("Content-Type").stream().findFirst().orElse(null),
                region);
        return executeAsync(Method.PUT, bucket, key, region, httpHeaders(headers), query, body, length)
                .thenApply(response -> {
                    try (response) {
                        String etag = response.header("ETag");
                        return etag == null ? null : etag.replace("\"", "");
                    }
                });
    }

    @Override
    protected Request createRequest(HttpUrl url, Method method, Headers headers, Object body, int length,
                                    Credentials credentials)
            throws InsufficientDataException, InternalException, IOException, NoSuchAlgorithmException {
        if (!(body instanceof FileBody file)) {
            return super.createRequest(url, method, headers, body, length, credentials);
        }
        // Every header the client sends (Host, date, session token, user agent) as for an empty body; the body's
        // own headers are then replaced. The client does not sign a request whose body is a RequestBody, so it is
        // signed here, with the payload hash it carries, exactly as the client signs a byte[] body.
        Request base = super.createRequest(url, method, headers, HttpUtils.EMPTY_BODY, 0, credentials);
        Request.Builder request = base.newBuilder()
                .header("Content-MD5", file.md5())
                .method(method.toString(), file);
        if (credentials == null) {
            return request.build();
        }
        String sha256 = url.isHttps() ? "UNSIGNED-PAYLOAD" : file.sha256();
        try {
            return Signer.signV4S3(request.header("x-amz-content-sha256", sha256).build(), file.region,
                    credentials.accessKey(), credentials.secretKey(), sha256);
        } catch (java.security.InvalidKeyException e) {
            throw new InternalException("cannot sign the request: " + e.getMessage(), null);
        }
    }

    /** A request body that writes the file's chunks as they are; re-readable, so a resend sends the same bytes. */
    private static final class FileBody extends RequestBody {
        private final FileBytes content;
        private final MediaType type;
        final String region;

        FileBody(FileBytes content, String contentType, String region) {
            this.content = content;
            MediaType parsed = contentType == null ? null : MediaType.parse(contentType);
            this.type = parsed == null ? MediaType.parse("application/octet-stream") : parsed;
            this.region = region;
        }

        @Override
        public MediaType contentType() {
            return type;
        }

        @Override
        public long contentLength() {
            return content.length();
        }

        @Override
        public void writeTo(BufferedSink sink) throws IOException {
            content.forEachChunk(sink::write);
        }

        String md5() throws NoSuchAlgorithmException, IOException {
            return Base64.getEncoder().encodeToString(digest("MD5"));
        }

        String sha256() throws NoSuchAlgorithmException, IOException {
            return HexFormat.of().formatHex(digest("SHA-256"));
        }

        private byte[] digest(String algorithm) throws NoSuchAlgorithmException, IOException {
            MessageDigest digest = MessageDigest.getInstance(algorithm);
            content.forEachChunk(digest::update);
            return digest.digest();
        }
    }
}
