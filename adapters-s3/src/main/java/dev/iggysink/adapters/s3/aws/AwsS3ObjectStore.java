package dev.iggysink.adapters.s3.aws;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.zip.CRC32C;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.checksums.RequestChecksumCalculation;
import software.amazon.awssdk.core.checksums.ResponseChecksumValidation;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CompletedPart;
import software.amazon.awssdk.services.s3.model.CreateMultipartUploadRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.ObjectIdentifier;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Error;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * {@link ObjectStore} over the AWS SDK v2 sync {@link S3Client} with the Apache HttpClient 5 client.
 *
 * <p>Exactly one HTTP attempt per request: the SDK's retry strategy is {@code doNotRetry} (and the SDK's Apache
 * client has its own retry handler disabled), so {@code max_attempts} in the sink's retry policy is the only
 * multiplier. (One exception, below the sink's policy: {@link FilePutHttpClient} sends a request once more on a new
 * connection when the kept connection it took ended before a byte of answer, the store having closed it as the
 * request came; no answer, so no attempt.) Every request is bounded by {@link StorageSettings#requestTimeout()} (attempt timeout and socket
 * timeout). Checksums are computed only when an operation requires them, which S3-compatible stores accept.
 *
 * <p>Over a plain-http endpoint addressed path-style, a whole-object PUT with a body is built, signed and sent by
 * {@link PlainHttpPut} instead of the SDK's call pipeline (the same request, the same failures; the pipeline's cost
 * per call is what a sink with one PUT per file cannot amortise). Everything else goes through the SDK.
 *
 * <p>Credentials: the configured key pair, else the sink's chain ({@link AwsCredentialChain}: a configured profile,
 * or environment, web identity, the shared files honouring {@code AWS_PROFILE}, container, EC2 IMDS), and with
 * {@code role_arn} the role assumed with those.
 * Thread-safe.
 */
public final class AwsS3ObjectStore extends S3WritePath<CompletedPart> {
    private static final Logger LOG = LoggerFactory.getLogger(AwsS3ObjectStore.class);

    private final ObjectOptions options;
    private final AwsCredentialsProvider credentials;
    /** The SDK's client, made at its first use: over plain http a sink may never need it (ADR 0021). */
    private volatile S3Client s3;
    private final StorageSettings settings;
    /** Plain http: a PUT's body carries a CRC32C and goes unsigned ({@link ChecksummedBodySigner}). */
    private final boolean checksumBodies;
    /** Over plain http: the client that sends a file body with sendfile; null over https. */
    private final FilePutHttpClient filePutClient;
    /** Over plain http with path-style addressing: a whole-object PUT without the SDK's pipeline; else null. */
    private final PlainHttpPut plainPut;

    public AwsS3ObjectStore(StorageSettings settings) {
        super(settings, "s3-aws");
        this.options = ObjectOptions.from(settings);
        this.credentials = credentialsOf(settings);
        this.checksumBodies = settings.endpoint().map(e -> AdapterSupport.endpoint(e).getScheme())
                .filter("http"::equalsIgnoreCase).isPresent();
        boolean proxied = FilePutHttpClient.proxyConfigured(System.getenv(), System.getProperties());
        if (checksumBodies && proxied) {
            LOG.info("an HTTP proxy is configured: file bodies go through Apache's client, which honours it");
        }
        this.filePutClient = checksumBodies && !proxied ? new FilePutHttpClient(apacheClient(settings).build(),
                AdapterSupport.connectTimeout(settings.requestTimeout()), settings.requestTimeout()) : null;
        this.settings = settings;
        this.plainPut = filePutClient != null && PlainHttpPut.usableFor(settings)
                ? new PlainHttpPut(settings, credentials, filePutClient) : null;
    }

    /** Whether the SDK's client was made: over plain http only multipart uploads and compare-and-swaps make it. */
    boolean sdkClientMade() {
        return s3 != null;
    }

    private S3Client s3() {
        S3Client client = s3;
        if (client == null) {
            synchronized (this) {
                client = s3;
                if (client == null) s3 = client = clientOf(settings, credentials, filePutClient);
            }
        }
        return client;
    }

    @Override
    public List<StoredObject> list(String prefix) throws StoreException {
        return list(prefix, "", "");
    }

    @Override
    public List<StoredObject> list(String prefix, String startAfter, String until) throws StoreException {
        if (plainPut != null) return plainPut.list(prefix, startAfter, until);
        try {
            List<StoredObject> objects = new ArrayList<>();
            // The paginator asks for the next page only when iterated that far.
            for (S3Object o : s3().listObjectsV2Paginator(b -> b.bucket(bucket).prefix(prefix)
                    .startAfter(startAfter.isEmpty() ? null : startAfter)).contents()) {
                if (!until.isEmpty() && o.key().compareTo(until) > 0) break;
                objects.add(new StoredObject(o.key(), o.size()));
            }
            return objects;
        } catch (SdkException e) {
            throw translate("LIST", prefix.isEmpty() ? null : prefix + "*", e);
        }
    }

    @Override
    public byte[] get(String key) throws StoreException {
        if (plainPut != null) return plainPut.get(key, 0, -1);
        return getVersioned(key).content();
    }

    @Override
    public Versioned getVersioned(String key) throws StoreException {
        try {
            ResponseBytes<GetObjectResponse> read = s3().getObjectAsBytes(b -> b.bucket(bucket).key(key));
            return new Versioned(read.asByteArrayUnsafe(), read.response().eTag());
        } catch (SdkException e) {
            throw translate("GET", key, e);
        }
    }

    @Override
    public byte[] get(String key, long from, int length) throws StoreException {
        if (length <= 0) return new byte[0];
        if (plainPut != null) return plainPut.get(key, from, length);
        String range = "bytes=" + from + "-" + (from + length - 1);
        try {
            return s3().getObjectAsBytes(b -> b.bucket(bucket).key(key).range(range)).asByteArrayUnsafe();
        } catch (SdkException e) {
            // 416: the range starts at or past the object's end, where there is nothing to read.
            if (e instanceof AwsServiceException service && service.statusCode() == 416) return new byte[0];
            throw translate("GET", key, e);
        }
    }

    @Override
    public Optional<Map<String, String>> metadata(String key) throws StoreException {
        if (plainPut != null) return plainPut.metadata(key);
        HeadObjectResponse head;
        try {
            head = s3().headObject(b -> b.bucket(bucket).key(key));
        } catch (NoSuchKeyException e) {
            return Optional.empty();
        } catch (SdkException e) {
            // An answer to HEAD has no body, so the SDK may not know the error's name: a 404 is the missing key.
            if (e instanceof AwsServiceException service && service.statusCode() == 404) return Optional.empty();
            throw translate("HEAD", key, e);
        }
        return Optional.of(AdapterSupport.lowerCaseNames(head.metadata()));
    }

    @Override
    public void close() {
        parts.shutdown();
        if (plainPut != null) plainPut.close();
        S3Client client = s3;
        if (client != null) client.close();
        if (filePutClient != null) filePutClient.close(); // given as an instance: the SDK leaves it open
        if (credentials instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOG.debug("closing the credentials provider", e);
            }
        }
    }

    @Override
    public String toString() {
        return "AwsS3ObjectStore[" + bucket + " @ " + settings.endpoint().orElse("aws:" + settings.region()) + "]";
    }

    @Override
    protected void putObject(String operation, String key, FileBytes content, String contentType,
                             Map<String, String> metadata) throws StoreException {
        String checksum = null;
        try {
            // an empty body too: the start-up probe's PUT would otherwise make the SDK's client
            if (checksumBodies && (content.length() > 0 || plainPut != null)) checksum = crc32c(content);
        } catch (IOException e) {
            // As when the SDK fails to read the body while sending it.
            throw StoreFailures.withoutAnswer(operation, bucket, key, e);
        }
        if (plainPut != null && checksum != null) {
            plainPut.put(operation, key, content, contentType, checksum, metadata);
            return;
        }
        PutObjectRequest.Builder request = putRequest(key, contentType, content.length(), metadata);
        if (checksum != null) request.checksumCRC32C(checksum);
        try {
            FilePutHttpClient.sending(content, () -> s3().putObject(request.build(), body(content, contentType)));
        } catch (SdkException e) {
            throw translate(operation, key, e);
        }
    }

    @Override
    protected void putObjectIfAbsent(String key, FileBytes content, String contentType, Map<String, String> metadata)
            throws StoreException {
        // A claim, or a file under the first-offset layout: where the adapter's own PUT path serves (ADR 0009), it
        // spares the SDK's pipeline.
        putConditionally("PUT If-None-Match", key, content, contentType, metadata, "If-None-Match", "*");
    }

    @Override
    protected void putObjectIfMatch(String key, FileBytes content, String contentType, String etag)
            throws StoreException {
        putConditionally("PUT If-Match", key, content, contentType, Map.of(), "If-Match", etag);
    }

    /** One PutObject carrying {@code condition} ({@code If-None-Match} or {@code If-Match}) with {@code value}. */
    private void putConditionally(String operation, String key, FileBytes content, String contentType,
                                  Map<String, String> metadata, String condition, String value)
            throws StoreException {
        String checksum = null;
        try {
            // an empty body too: the start-up probe's PUT would otherwise make the SDK's client
            if (checksumBodies && (content.length() > 0 || plainPut != null)) checksum = crc32c(content);
        } catch (IOException e) {
            throw StoreFailures.withoutAnswer(operation, bucket, key, e);
        }
        if (plainPut != null && checksum != null) {
            plainPut.put(operation, key, content, contentType, checksum, metadata, Map.of(condition, value));
            return;
        }
        PutObjectRequest.Builder request = putRequest(key, contentType, content.length(), metadata);
        if (condition.equals("If-Match")) request.ifMatch(value);
        else request.ifNoneMatch(value);
        if (checksum != null) request.checksumCRC32C(checksum);
        try {
            FilePutHttpClient.sending(content, () -> s3().putObject(request.build(), body(content, contentType)));
        } catch (SdkException e) {
            throw translate(operation, key, e);
        }
    }

    /** A PutObject with the object options, and the user metadata when there is any. */
    private PutObjectRequest.Builder putRequest(String key, String contentType, long length,
                                                Map<String, String> metadata) {
        PutObjectRequest.Builder request = PutObjectRequest.builder()
                .bucket(bucket).key(key).contentType(contentType).contentLength(length);
        options.sse().ifPresent(request::serverSideEncryption);
        options.sseKmsKeyId().ifPresent(request::ssekmsKeyId);
        options.storageClass().ifPresent(request::storageClass);
        options.cannedAcl().ifPresent(request::acl);
        options.tagging().ifPresent(request::tagging);
        if (!metadata.isEmpty()) request.metadata(metadata);
        return request;
    }

    @Override
    protected void deleteObject(String key) throws StoreException {
        if (plainPut != null) {
            plainPut.delete(key);
            return;
        }
        try {
            s3().deleteObject(b -> b.bucket(bucket).key(key));
        } catch (SdkException e) {
            throw translate("DELETE", key, e);
        }
    }

    @Override
    protected List<String[]> deleteObjects(List<String> keys) throws StoreException {
        if (plainPut != null) return plainPut.deleteObjects(keys);
        List<ObjectIdentifier> ids = new ArrayList<>(keys.size());
        for (String key : keys) ids.add(ObjectIdentifier.builder().key(key).build());
        try {
            List<String[]> failed = new ArrayList<>();
            for (S3Error e : s3().deleteObjects(b -> b.bucket(bucket).delete(d -> d.quiet(true).objects(ids))).errors()) {
                failed.add(new String[] {e.key(), e.code(), e.message()});
            }
            return failed;
        } catch (SdkException e) {
            throw translate("DELETE OBJECTS", keys.get(0), e);
        }
    }

    @Override
    protected String createMultipartUpload(String key, String contentType, Map<String, String> metadata)
            throws StoreException {
        CreateMultipartUploadRequest.Builder create = CreateMultipartUploadRequest.builder()
                .bucket(bucket).key(key).contentType(contentType);
        if (!metadata.isEmpty()) create.metadata(metadata);
        options.sse().ifPresent(create::serverSideEncryption);
        options.sseKmsKeyId().ifPresent(create::ssekmsKeyId);
        options.storageClass().ifPresent(create::storageClass);
        options.cannedAcl().ifPresent(create::acl);
        options.tagging().ifPresent(create::tagging);
        try {
            return s3().createMultipartUpload(create.build()).uploadId();
        } catch (SdkException e) {
            throw translate("CREATE MULTIPART UPLOAD", key, e);
        }
    }

    @Override
    protected CompletedPart uploadPart(String key, String uploadId, PartPlan.Part part, FileBytes content,
                                       String contentType) throws StoreException {
        try {
            String etag = FilePutHttpClient.sending(content, () -> s3().uploadPart(b -> b.bucket(bucket).key(key)
                            .uploadId(uploadId).partNumber(part.number()).contentLength((long) part.length()),
                    body(content, contentType))).eTag();
            return CompletedPart.builder().partNumber(part.number()).eTag(etag).build();
        } catch (SdkException e) {
            throw translate("UPLOAD PART " + part.number(), key, e);
        }
    }

    @Override
    protected void completeMultipartUpload(String key, String uploadId, List<CompletedPart> uploaded,
                                           boolean ifNoneMatch) throws StoreException {
        try {
            s3().completeMultipartUpload(b -> {
                b.bucket(bucket).key(key).uploadId(uploadId).multipartUpload(m -> m.parts(uploaded));
                if (ifNoneMatch) b.ifNoneMatch("*");
            });
        } catch (SdkException e) {
            throw translate(ifNoneMatch ? "COMPLETE MULTIPART UPLOAD If-None-Match" : "COMPLETE MULTIPART UPLOAD",
                    key, e);
        }
    }

    @Override
    protected void abortMultipartUpload(String key, String uploadId) throws StoreException {
        try {
            s3().abortMultipartUpload(b -> b.bucket(bucket).key(key).uploadId(uploadId));
        } catch (SdkException e) {
            throw translate("ABORT MULTIPART UPLOAD", key, e);
        }
    }

    /**
     * Streams the file's chunks as they are: no copy, and a fresh stream each time the SDK reads the body (to hash
     * it for the signature, then to send it).
     */
    private static RequestBody body(FileBytes content, String contentType) {
        return RequestBody.fromContentProvider(content::openStream, content.length(), contentType);
    }

    /**
     * The bytes' CRC32C as S3 wants it (the four bytes, big-endian, in base64): as their writer computed it, else
     * read once for it.
     */
    private static String crc32c(FileBytes content) throws IOException {
        int value;
        if (content.crc32c().isPresent()) {
            value = (int) content.crc32c().getAsLong();
        } else {
            CRC32C crc = new CRC32C();
            content.forEachChunk(crc::update);
            value = (int) crc.getValue();
        }
        return Base64.getEncoder().encodeToString(new byte[] {
                (byte) (value >>> 24), (byte) (value >>> 16), (byte) (value >>> 8), (byte) value});
    }

    /** The store's failure for an SDK exception (package-private for the differential test). */
    StoreException translate(String operation, String key, SdkException e) {
        if (e instanceof AwsServiceException service) {
            String code = service.awsErrorDetails() == null ? null : service.awsErrorDetails().errorCode();
            String message = service.awsErrorDetails() == null ? null : service.awsErrorDetails().errorMessage();
            String retryAfter = service.awsErrorDetails() == null || service.awsErrorDetails().sdkHttpResponse() == null
                    ? null
                    : service.awsErrorDetails().sdkHttpResponse().firstMatchingHeader("Retry-After").orElse(null);
            return StoreFailures.fromStatus(operation, bucket, key, service.statusCode(), code, message, retryAfter,
                    e);
        }
        // Timeouts (ApiCallAttemptTimeoutException) and I/O failures: the request got no complete answer.
        return StoreFailures.withoutAnswer(operation, bucket, key, e);
    }

    private static AwsCredentialsProvider credentialsOf(StorageSettings settings) {
        if (settings.accessKeyId().isPresent() && settings.secretAccessKey().isPresent()
                && settings.credentials().roleArn().isEmpty()) {
            return StaticCredentialsProvider.create(AwsBasicCredentials.create(settings.accessKeyId().get(),
                    settings.secretAccessKey().get().reveal()));
        }
        // A fresh chain per store, so it reads the environment as it is now.
        return AwsCredentialChain.of(settings);
    }

    private static Apache5HttpClient.Builder apacheClient(StorageSettings settings) {
        return Apache5HttpClient.builder()
                .maxConnections(Math.max(16, settings.uploadConcurrency() * 4))
                .connectionTimeout(AdapterSupport.connectTimeout(settings.requestTimeout()))
                .socketTimeout(settings.requestTimeout());
    }

    /** The SDK client as the store builds it; with a null {@code filePutClient}, on Apache's alone (tests too). */
    static S3Client clientOf(StorageSettings settings, AwsCredentialsProvider credentials,
                             FilePutHttpClient filePutClient) {
        S3ClientBuilder builder = S3Client.builder()
                .region(Region.of(settings.region()))
                .forcePathStyle(settings.pathStyle())
                // Over plain http the SDK would send aws-chunked bodies; s3proxy mishandles an empty aws-chunked
                // body and drops the keep-alive connection under the next request (seen as "Broken pipe"). Plain
                // bodies it is: a PUT's with a CRC32C and UNSIGNED-PAYLOAD (ChecksummedBodySigner), a part's and
                // an empty one's with their SHA-256. Over https the SDK sends UNSIGNED-PAYLOAD either way.
                .serviceConfiguration(c -> c.chunkedEncodingEnabled(false))
                .credentialsProvider(credentials)
                .putAuthScheme(ChecksummedBodySigner.scheme())
                .requestChecksumCalculation(RequestChecksumCalculation.WHEN_REQUIRED)
                .responseChecksumValidation(ResponseChecksumValidation.WHEN_REQUIRED)
                .overrideConfiguration(o -> o
                        // One attempt per call: the sink's RetryPolicy decides about retries, so max_attempts
                        // counts requests and is not multiplied by the SDK's own 3 attempts.
                        .retryStrategy(AwsRetryStrategy.doNotRetry())
                        .apiCallAttemptTimeout(settings.requestTimeout()));
        // Named explicitly: the SDK would pick whichever client it finds first on the class path.
        if (filePutClient != null) builder.httpClient(filePutClient);
        else builder.httpClientBuilder(apacheClient(settings));
        Optional<String> endpoint = settings.endpoint();
        endpoint.ifPresent(e -> builder.endpointOverride(AdapterSupport.endpoint(e)));
        return builder.build();
    }
}
