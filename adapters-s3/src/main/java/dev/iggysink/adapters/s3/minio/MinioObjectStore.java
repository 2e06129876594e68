package dev.iggysink.adapters.s3.minio;

import java.io.IOException;
import java.security.GeneralSecurityException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import com.google.common.collect.LinkedListMultimap;
import com.google.common.collect.Multimap;

import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.adapters.s3.credentials.AwsCredentialChain;
import dev.iggysink.adapters.s3.support.AdapterSupport;
import dev.iggysink.adapters.s3.support.ObjectOptions;
import dev.iggysink.adapters.s3.support.PartPlan;
import dev.iggysink.adapters.s3.support.S3WritePath;
import dev.iggysink.adapters.s3.support.StoreFailures;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import dev.iggysink.application.port.out.StoreException;
import dev.iggysink.application.port.out.StoredObject;

import io.minio.GetObjectArgs;
import io.minio.GetObjectResponse;
import io.minio.ListObjectsArgs;
import io.minio.MinioAsyncClient;
import io.minio.RemoveObjectArgs;
import io.minio.Result;
import io.minio.StatObjectArgs;
import io.minio.StatObjectResponse;
import io.minio.errors.ErrorResponseException;
import io.minio.errors.InvalidResponseException;
import io.minio.errors.MinioException;
import io.minio.errors.ServerException;
import io.minio.messages.Item;
import io.minio.messages.Part;
import okhttp3.Dispatcher;
import okhttp3.OkHttpClient;
import okhttp3.Protocol;

/**
 * {@link ObjectStore} over the MinIO Java client ({@link MinioAsyncClient}, OkHttp 5).
 *
 * <p>Exactly one HTTP attempt per request: the MinIO client has no retry loop of its own, and OkHttp's
 * {@code retryOnConnectionFailure} is off (it would silently resend a request after a reset or a stale pooled
 * connection), so {@code max_attempts} in the sink's retry policy is the only multiplier. Each call is bounded by
 * {@link StorageSettings#requestTimeout()} (OkHttp call, read and write timeouts).
 *
 * <p>Credentials: the configured key pair, else the sink's AWS chain ({@link AwsChainCredentials}), and with
 * {@code role_arn} the role's, so both adapters find credentials in the same places in the same order. Files and multipart parts are sent from the
 * encoder's chunks as they are ({@link SinkMinioClient}), never copied. Thread-safe.
 */
public final class MinioObjectStore extends S3WritePath<Part> {
    private static final Pattern NON_XML_STATUS = Pattern.compile("Response code: (\\d{3})");

    private final String region;
    private final ObjectOptions options;
    private final OkHttpClient http;
    private final AwsChainCredentials chain;
    private final SinkMinioClient minio;

    public MinioObjectStore(StorageSettings settings) {
        super(settings, "s3-minio");
        this.region = settings.region();
        this.options = ObjectOptions.from(settings);
        this.http = httpClient(settings);
        MinioAsyncClient.Builder builder = MinioAsyncClient.builder()
                .endpoint(settings.endpoint().map(e -> AdapterSupport.endpoint(e).toString())
                        .orElse("https://s3." + region + ".amazonaws.com"))
                // Given a region, the client never asks GetBucketLocation (one request fewer, and the probe's
                // first request is the write it is meant to test).
                .region(region)
                .httpClient(http);
        if (settings.accessKeyId().isPresent() && settings.secretAccessKey().isPresent()
                && settings.credentials().roleArn().isEmpty()) {
            builder.credentials(settings.accessKeyId().get(), settings.secretAccessKey().get().reveal());
            this.chain = null;
        } else {
            this.chain = new AwsChainCredentials(AwsCredentialChain.of(settings));
            builder.credentialsProvider(chain);
        }
        this.minio = new SinkMinioClient(builder.build());
        if (settings.pathStyle()) {
            minio.disableVirtualStyleEndpoint();
        } else {
            minio.enableVirtualStyleEndpoint();
        }
    }

    @Override
    public List<StoredObject> list(String prefix) throws StoreException {
        return list(prefix, "", "");
    }

    @Override
    public List<StoredObject> list(String prefix, String startAfter, String until) throws StoreException {
        String what = prefix.isEmpty() ? null : prefix + "*";
        List<StoredObject> objects = new ArrayList<>();
        ListObjectsArgs.Builder args = ListObjectsArgs.builder().bucket(bucket).region(region).prefix(prefix)
                .recursive(true);
        if (!startAfter.isEmpty()) args.startAfter(startAfter);
        Iterable<Result<Item>> results = minio.listObjects(args.build());
        try {
            for (Result<Item> result : results) {
                Item item = result.get();
                // The listing asks for the next page only when iterated that far.
                if (!until.isEmpty() && item.objectName().compareTo(until) > 0) break;
                objects.add(new StoredObject(item.objectName(), item.size()));
            }
        } catch (MinioException | GeneralSecurityException | IOException e) { // Jackson's exceptions are IOExceptions
            throw translate("LIST", what, e);
        } catch (AwsChainCredentials.Unavailable e) {
            throw StoreFailures.withoutAnswer("LIST", bucket, what, e.getCause());
        }
        return objects;
    }

    @Override
    public byte[] get(String key) throws StoreException {
        return getVersioned(key).content();
    }

    @Override
    public Versioned getVersioned(String key) throws StoreException {
        GetObjectResponse response = await("GET", key, () -> minio.getObject(GetObjectArgs.builder().bucket(bucket)
                .region(region).object(key).build()));
        try (response) {
            return new Versioned(response.readAllBytes(), response.headers().get("ETag"));
        } catch (IOException e) {
            throw StoreFailures.transport("GET", bucket, key, e);
        }
    }

    @Override
    public byte[] get(String key, long from, int length) throws StoreException {
        if (length <= 0) return new byte[0];
        GetObjectResponse response;
        try {
            response = await("GET", key, () -> minio.getObject(GetObjectArgs.builder().bucket(bucket)
                    .region(region).object(key).offset(from).length((long) length).build()));
        } catch (StoreException e) {
            // 416: the range starts at or past the object's end, where there is nothing to read.
            if (e.httpStatus() == 416) return new byte[0];
            throw e;
        }
        try (response) {
            return response.readAllBytes();
        } catch (IOException e) {
            throw StoreFailures.transport("GET", bucket, key, e);
        }
    }

    @Override
    public Optional<Map<String, String>> metadata(String key) throws StoreException {
        StatObjectResponse stat;
        try {
            stat = await("HEAD", key, () -> minio.statObject(StatObjectArgs.builder().bucket(bucket).region(region)
                    .object(key).build()));
        } catch (StoreException e) {
            // An answer to HEAD has no body: the client names a 404 NoSuchKey from the status alone.
            if (e.httpStatus() == 404) return Optional.empty();
            throw e;
        }
        return Optional.of(AdapterSupport.lowerCaseNames(stat.userMetadata()));
    }

    @Override
    public void close() {
        parts.shutdown();
        // The client was handed our OkHttpClient, so it is ours to release: its dispatcher threads and pool.
        http.dispatcher().executorService().shutdown();
        http.connectionPool().evictAll();
        if (chain != null) {
            chain.close();
        }
    }

    @Override
    public String toString() {
        return "MinioObjectStore[" + bucket + " @ " + settings.endpoint().orElse("aws:" + region) + "]";
    }

    @Override
    protected void putObject(String operation, String key, FileBytes content, String contentType,
                             Map<String, String> metadata) throws StoreException {
        Multimap<String, String> headers = objectHeaders(contentType, metadata);
        await(operation, key, () -> minio.putFile(bucket, region, key, content, headers));
    }

    @Override
    protected void putObjectIfAbsent(String key, FileBytes content, String contentType, Map<String, String> metadata)
            throws StoreException {
        // The same request as a put (object options, metadata as x-amz-meta-*, Content-MD5), with the condition.
        Multimap<String, String> headers = objectHeaders(contentType, metadata);
        headers.put("If-None-Match", "*");
        await("PUT If-None-Match", key, () -> minio.putFile(bucket, region, key, content, headers));
    }

    @Override
    protected void putObjectIfMatch(String key, FileBytes content, String contentType, String etag)
            throws StoreException {
        Multimap<String, String> headers = objectHeaders(contentType, Map.of());
        headers.put("If-Match", etag);
        await("PUT If-Match", key, () -> minio.putFile(bucket, region, key, content, headers));
    }

    @Override
    protected void deleteObject(String key) throws StoreException {
        await("DELETE", key, () -> minio.removeObject(RemoveObjectArgs.builder().bucket(bucket).region(region)
                .object(key).build()));
    }

    @Override
    protected List<String[]> deleteObjects(List<String> keys) throws StoreException {
        List<String[]> failed = new ArrayList<>();
        for (io.minio.messages.DeleteError e : await("DELETE OBJECTS", keys.get(0),
                () -> minio.deleteKeys(bucket, region, keys)).result().errorList()) {
            failed.add(new String[] {e.objectName(), e.code(), e.message()});
        }
        return failed;
    }

    @Override
    protected String createMultipartUpload(String key, String contentType, Map<String, String> metadata)
            throws StoreException {
        return await("CREATE MULTIPART UPLOAD", key, () -> minio.createMultipartUploadAsync(bucket, region, key,
                objectHeaders(contentType, metadata), null)).result().uploadId();
    }

    @Override
    protected Part uploadPart(String key, String uploadId, PartPlan.Part part, FileBytes content,
                              String contentType) throws StoreException {
        // Only Content-Type: the object options were sent with CreateMultipartUpload and parts inherit them.
        Multimap<String, String> headers = LinkedListMultimap.create();
        headers.put("Content-Type", "application/octet-stream");
        String etag = await("UPLOAD PART " + part.number(), key, () -> minio.uploadFilePart(bucket, region, key,
                content, uploadId, part.number(), headers));
        return new Part(part.number(), etag);
    }

    @Override
    protected void completeMultipartUpload(String key, String uploadId, List<Part> uploaded, boolean ifNoneMatch)
            throws StoreException {
        Multimap<String, String> headers = null;
        if (ifNoneMatch) {
            headers = LinkedListMultimap.create();
            headers.put("If-None-Match", "*");
        }
        Multimap<String, String> extra = headers;
        await(ifNoneMatch ? "COMPLETE MULTIPART UPLOAD If-None-Match" : "COMPLETE MULTIPART UPLOAD", key,
                () -> minio.completeMultipartUploadAsync(bucket, region, key, uploadId,
                        uploaded.toArray(new Part[0]), extra, null));
    }

    @Override
    protected void abortMultipartUpload(String key, String uploadId) throws StoreException {
        await("ABORT MULTIPART UPLOAD", key, () -> minio.abortMultipartUploadAsync(bucket, region, key, uploadId,
                null, null));
    }

    private Multimap<String, String> objectHeaders(String contentType, Map<String, String> metadata) {
        Multimap<String, String> headers = LinkedListMultimap.create();
        headers.put("Content-Type", contentType);
        for (Map.Entry<String, String> h : options.headers().entrySet()) {
            headers.put(h.getKey(), h.getValue());
        }
        AdapterSupport.metadataHeaders(metadata).forEach(headers::put);
        return headers;
    }

    /** Starting a MinIO call may throw before any request is sent (signing, serialising). */
    @FunctionalInterface
    private interface MinioCall<T> {
        CompletableFuture<T> start() throws MinioException, GeneralSecurityException, IOException;
    }

    /**
     * Runs one call to its end. No timeout on the wait: OkHttp's call timeout ends the request, and waiting less
     * would leave it running behind our back.
     */
    private <T> T await(String operation, String key, MinioCall<T> call) throws StoreException {
        try {
            return call.start().get();
        } catch (ExecutionException e) {
            throw translate(operation, key, e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException(operation + " " + StoreFailures.location(bucket, key) + " interrupted", false,
                    0, null, e);
        } catch (MinioException | GeneralSecurityException | IOException e) {
            throw translate(operation, key, e);
        } catch (AwsChainCredentials.Unavailable e) {
            throw StoreFailures.withoutAnswer(operation, bucket, key, e.getCause());
        }
    }

    private StoreException translate(String operation, String key, Throwable failure) {
        Throwable e = failure;
        while ((e instanceof CompletionException || e instanceof ExecutionException
                || e instanceof AwsChainCredentials.Unavailable) && e.getCause() != null) {
            e = e.getCause();
        }
        if (e instanceof ErrorResponseException error) {
            okhttp3.Response response = error.response();
            return StoreFailures.fromStatus(operation, bucket, key, response.code(), error.errorResponse().code(),
                    error.errorResponse().message(), response.header("Retry-After"), error);
        }
        if (e instanceof ServerException server) {
            return StoreFailures.fromStatus(operation, bucket, key, server.statusCode(), null, null, null, server);
        }
        if (e instanceof InvalidResponseException invalid) {
            // A non-XML error page, usually from a load balancer or proxy in front of the store.
            Matcher status = NON_XML_STATUS.matcher(String.valueOf(invalid.getMessage()));
            if (status.find()) {
                return StoreFailures.fromStatus(operation, bucket, key, Integer.parseInt(status.group(1)), null,
                        "non-XML error response", null, invalid);
            }
        }
        return StoreFailures.withoutAnswer(operation, bucket, key, e);
    }

    private static OkHttpClient httpClient(StorageSettings settings) {
        Duration timeout = settings.requestTimeout();
        Dispatcher dispatcher = new Dispatcher();
        // Parts are bounded by our pool; the dispatcher's default of 5 per host must not queue them again.
        dispatcher.setMaxRequests(Math.max(64, settings.uploadConcurrency() * 4));
        dispatcher.setMaxRequestsPerHost(Math.max(64, settings.uploadConcurrency() * 4));
        return new OkHttpClient.Builder()
                .dispatcher(dispatcher)
                .protocols(List.of(Protocol.HTTP_1_1))
                .connectTimeout(AdapterSupport.connectTimeout(timeout).toMillis(), TimeUnit.MILLISECONDS)
                .readTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .writeTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                .callTimeout(timeout.toMillis(), TimeUnit.MILLISECONDS)
                // Off: OkHttp would resend a request after a connection failure, multiplying max_attempts.
                .retryOnConnectionFailure(false)
                .build();
    }
}
