package dev.iggysink.adapters.s3.aws;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import dev.iggysink.application.port.out.StoredObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.iggysink.adapters.s3.StorageSettings;
import dev.iggysink.adapters.s3.support.AdapterSupport;
import dev.iggysink.adapters.s3.support.ObjectOptions;
import dev.iggysink.adapters.s3.support.StoreFailures;
import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.StoreException;

import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.http.ExecutableHttpRequest;
import software.amazon.awssdk.http.HttpExecuteResponse;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.SdkHttpResponse;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * A whole-object PUT over plain http, built, signed and sent without the SDK's request pipeline: the request the
 * SDK would send (path-style address, the key encoded as the SDK encodes it, the object options' headers, the
 * user metadata as {@code x-amz-meta-*} headers, the body's CRC32C, {@code UNSIGNED-PAYLOAD} as
 * {@link ChecksummedBodySigner} signs it, {@code Expect: 100-continue}),
 * signed by the SDK's own {@link AwsV4HttpSigner} with the store's credentials provider, and sent by
 * {@link FilePutHttpClient}.
 *
 * <p>Why: for each call the SDK runs its pipeline (some thirty stages, interceptors, the S3 endpoint rules). A sink
 * makes one PUT per file, 136 for a million 1 KiB records in 8 MiB files: too few for that code to be compiled, so
 * it runs interpreted (figures: docs/adr/0009-whole-object-puts-without-the-sdk-pipeline.md).
 *
 * <p>As the SDK's call: one attempt bounded by the request timeout (when it passes, the connection is closed, which
 * ends a blocked write or read, and the failure says it timed out); an error answer becomes the same
 * {@link StoreException} (status, S3 error code and message, {@code Retry-After}); an answer saying the request's
 * time is too far from the store's ({@code RequestTimeTooSkewed}) sets the offset later signatures use, from the
 * answer's {@code Date}. Used only where the SDK would send exactly this request: {@link #usableFor}.
 *
 * <p>The same way go a HEAD, a GET (whole or ranged), a DELETE, a LIST (ListObjectsV2) and a DeleteObjects, so that
 * over plain http a sink never makes the SDK's S3 client, whose making and first LIST took 0.6 s of CPU in a cold
 * JVM (docs/adr/0021-table-files-through-the-sinks-store.md).
 */
final class PlainHttpPut implements AutoCloseable {
    /** The most of an error answer's body read for its code and message; S3's error documents are far smaller. */
    private static final int MAX_ERROR_BODY = 64 * 1024;
    /** Codes of an answer about the request's signing time rather than its signature or rights. */
    private static final Set<String> SKEW_CODES = Set.of("RequestTimeTooSkewed", "RequestExpired");

    private final String bucket;
    private final String host;
    private final int port;
    private final AwsCredentialsProvider credentials;
    private final Map<String, String> optionHeaders;
    private final FilePutHttpClient client;
    private final Duration timeout;
    private final Clock clock;
    private final AwsV4HttpSigner signer = AwsV4HttpSigner.create();
    private final String region;
    /** {@code /bucket/}, encoded. */
    private final String bucketPath;
    private final ScheduledThreadPoolExecutor timer;
    /** Store time minus ours, learnt from a skew answer; added to the clock for signing. */
    private volatile long skewMillis;

    PlainHttpPut(StorageSettings settings, AwsCredentialsProvider credentials, FilePutHttpClient client) {
        this(settings, credentials, client, Clock.systemUTC());
    }

    PlainHttpPut(StorageSettings settings, AwsCredentialsProvider credentials, FilePutHttpClient client,
                 Clock clock) {
        this.region = settings.region();
        URI endpoint = AdapterSupport.endpoint(settings.endpoint().orElseThrow());
        this.bucket = settings.bucket();
        this.host = endpoint.getHost();
        this.port = endpoint.getPort() > 0 ? endpoint.getPort() : 80;
        this.credentials = credentials;
        this.optionHeaders = ObjectOptions.from(settings).headers();
        this.client = client;
        this.timeout = settings.requestTimeout();
        this.clock = clock;
        this.bucketPath = "/" + SdkHttpUtils.urlEncode(bucket) + "/";
        this.timer = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "s3-put-timeout");
            t.setDaemon(true);
            return t;
        });
        timer.setRemoveOnCancelPolicy(true);
    }

    /**
     * Whether the SDK would send a PUT to {@code settings} as this class does: a plain-http endpoint without a path,
     * on a port other than 443 (whose Host header would be signed differently, see {@link ChecksummedBodySigner}),
     * addressed path-style (virtual-host addressing follows the SDK's endpoint rules, left to the SDK).
     */
    static boolean usableFor(StorageSettings settings) {
        if (settings.endpoint().isEmpty() || !settings.pathStyle()) return false;
        URI endpoint = AdapterSupport.endpoint(settings.endpoint().get());
        String path = endpoint.getRawPath();
        return "http".equalsIgnoreCase(endpoint.getScheme()) && endpoint.getHost() != null
                && endpoint.getPort() != 443 && (path == null || path.isEmpty() || path.equals("/"))
                && endpoint.getRawQuery() == null;
    }

    /**
     * PUTs {@code content} (not empty) under {@code key}; {@code crc32c} is its checksum as S3 wants it,
     * {@code metadata} the user metadata (checked by {@link AdapterSupport#checkedMetadata}, names without prefix).
     */
    void put(String operation, String key, FileBytes content, String contentType, String crc32c,
             Map<String, String> metadata) throws StoreException {
        put(operation, key, content, contentType, crc32c, metadata, false);
    }

    /**
     * {@link #put}, and with {@code ifNoneMatch} a conditional create ({@code If-None-Match: *}, signed): a key
     * that exists is refused with the store's 412 (409 when two creates race), thrown as any failing answer.
     */
    void put(String operation, String key, FileBytes content, String contentType, String crc32c,
             Map<String, String> metadata, boolean ifNoneMatch) throws StoreException {
        put(operation, key, content, contentType, crc32c, metadata,
                ifNoneMatch ? Map.of("If-None-Match", "*") : Map.of());
    }

    /**
     * {@link #put} with {@code conditions} ({@code If-None-Match: *}, {@code If-Match: <etag>}), signed: a condition
     * the store finds false is refused with its 412 (409 when two conditional writes race, 404 when an
     * {@code If-Match} finds no object), thrown as any failing answer.
     */
    void put(String operation, String key, FileBytes content, String contentType, String crc32c,
             Map<String, String> metadata, Map<String, String> conditions) throws StoreException {
        FilePutHttpClient.Head request;
        try {
            request = signed(key, content.length(), contentType, crc32c, metadata, conditions);
        } catch (RuntimeException e) {
            // The credentials provider found none, or could not reach where they come from.
            throw StoreFailures.withoutAnswer(operation, bucket, key, e);
        }
        send(operation, key, client.filePut(request, content), response -> null);
    }

    /**
     * The user metadata of {@code key} (names in lower case, without prefix), from a HEAD; empty when there is no
     * such key. The self-audit reads back every committed object so: through the SDK's pipeline that HEAD was a
     * sixth of the sink's CPU at 8 MiB files.
     */
    Optional<Map<String, String>> metadata(String key) throws StoreException {
        FilePutHttpClient.Head request = signedOrFail("HEAD", SdkHttpMethod.HEAD, key, Map.of());
        return send("HEAD", key, client.head(request), response -> {
            Map<String, String> metadata = new TreeMap<>();
            response.forEachHeader((name, values) -> {
                if (name.regionMatches(true, 0, AdapterSupport.METADATA_PREFIX, 0,
                        AdapterSupport.METADATA_PREFIX.length()) && !values.isEmpty()) {
                    metadata.put(name.substring(AdapterSupport.METADATA_PREFIX.length()).toLowerCase(Locale.ROOT),
                            values.get(0));
                }
            });
            return Collections.unmodifiableMap(metadata);
        }, 404);
    }

    /**
     * Up to {@code length} bytes of {@code key} from byte {@code from} on (a ranged GET), fewer at the object's end,
     * none from its end on; the whole object when {@code length} is negative. A missing key fails with S3's 404, as
     * the SDK's GET does. Reading the tables' metadata and manifests so keeps the SDK's client out of a table sink.
     */
    byte[] get(String key, long from, int length) throws StoreException {
        FilePutHttpClient.Head request = signedOrFail("GET", SdkHttpMethod.GET, key,
                length >= 0 ? Map.of("Range", "bytes=" + from + "-" + (from + length - 1)) : Map.of());
        // 416: the range starts at or past the object's end, where there is nothing to read
        return send("GET", key, client.get(request), (response, body) -> body.readAllBytes(), 416)
                .orElse(new byte[0]);
    }

    /** Deletes {@code key}; a key that is not there is no failure (S3 answers 204 either way, some stores 404). */
    void delete(String key) throws StoreException {
        FilePutHttpClient.Head request = signedOrFail("DELETE", SdkHttpMethod.DELETE, key, Map.of());
        send("DELETE", key, client.delete(request), response -> null, 404);
    }

    /**
     * Keys under {@code prefix} that sort after {@code startAfter} and not after {@code until} (either empty: no
     * bound), a ListObjectsV2 page of up to 1,000 at a time, the next page asked for only while the last key was not
     * past {@code until}. Keys come url-encoded ({@code encoding-type=url}) so that any key survives the XML.
     */
    List<StoredObject> list(String prefix, String startAfter, String until) throws StoreException {
        List<StoredObject> objects = new ArrayList<>();
        String token = null;
        String what = prefix.isEmpty() ? null : prefix + "*";
        while (true) {
            Map<String, String> query = new TreeMap<>();
            query.put("list-type", "2");
            query.put("encoding-type", "url");
            if (!prefix.isEmpty()) query.put("prefix", prefix);
            if (token != null) query.put("continuation-token", token);
            else if (!startAfter.isEmpty()) query.put("start-after", startAfter);
            FilePutHttpClient.Head request;
            try {
                Map<String, String> headers = new LinkedHashMap<>();
                headers.put("User-Agent", "iggy-s3-sink");
                request = signedOnBucket(SdkHttpMethod.GET, query, headers);
            } catch (RuntimeException e) {
                throw StoreFailures.withoutAnswer("LIST", bucket, what, e);
            }
            ListPage page = send("LIST", what, client.get(request), (response, body) -> ListPage.read(body))
                    .orElseThrow();
            for (StoredObject o : page.objects()) {
                if (!until.isEmpty() && o.key().compareTo(until) > 0) return objects;
                objects.add(o);
            }
            if (!page.truncated() || page.next() == null) return objects;
            token = page.next();
        }
    }

    /**
     * Deletes {@code keys} in one DeleteObjects request (quiet: the answer names only the keys not deleted);
     * each key not deleted as {@code {key, code, message}}.
     */
    List<String[]> deleteObjects(List<String> keys) throws StoreException {
        StringBuilder xml = new StringBuilder(64 + keys.size() * 64)
                .append("<Delete xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><Quiet>true</Quiet>");
        for (String key : keys) xml.append("<Object><Key>").append(xmlText(key)).append("</Key></Object>");
        xml.append("</Delete>");
        byte[] body = xml.toString().getBytes(StandardCharsets.UTF_8);
        FilePutHttpClient.Head request;
        try {
            Map<String, String> headers = new LinkedHashMap<>();
            headers.put("Content-Type", "application/xml");
            headers.put("Content-Length", Integer.toString(body.length));
            // DeleteObjects must carry its body's digest: an unsigned payload with its MD5 and CRC32C
            headers.put("Content-MD5", java.util.Base64.getEncoder().encodeToString(md5(body)));
            headers.put(ChecksummedBodySigner.CHECKSUM_HEADER, crc32cOf(body));
            headers.put("User-Agent", "iggy-s3-sink");
            request = signedOnBucket(SdkHttpMethod.POST, Map.of("delete", ""), headers);
        } catch (RuntimeException e) {
            throw StoreFailures.withoutAnswer("DELETE OBJECTS", bucket, null, e);
        }
        return send("DELETE OBJECTS", null, client.post(request, FileBytes.of(body)),
                (response, in) -> DeleteErrors.read(in)).orElseThrow();
    }

    private static byte[] md5(byte[] body) {
        try {
            return java.security.MessageDigest.getInstance("MD5").digest(body);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("no MD5 in this JVM", e);
        }
    }

    private static String crc32cOf(byte[] body) {
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(body);
        long v = crc.getValue();
        return java.util.Base64.getEncoder().encodeToString(new byte[] {(byte) (v >>> 24), (byte) (v >>> 16),
                (byte) (v >>> 8), (byte) v});
    }

    /** {@code text} escaped for an XML element's content. */
    static String xmlText(String text) {
        StringBuilder out = new StringBuilder(text.length() + 16);
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            switch (c) {
                case '&' -> out.append("&amp;");
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                case '\r' -> out.append("&#13;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }

    /** One ListObjectsV2 answer: its keys (decoded) with their sizes, whether more follow, and the token for them. */
    record ListPage(List<StoredObject> objects, boolean truncated, String next) {
        static ListPage read(InputStream body) throws IOException {
            List<StoredObject> objects = new ArrayList<>();
            boolean truncated = false;
            String next = null;
            String key = null;
            long size = 0;
            boolean inContents = false;
            try {
                javax.xml.stream.XMLStreamReader r = xmlReader(body);
                while (r.hasNext()) {
                    int event = r.next();
                    if (event == javax.xml.stream.XMLStreamConstants.START_ELEMENT) {
                        switch (r.getLocalName()) {
                            case "Contents" -> {
                                inContents = true;
                                key = null;
                                size = 0;
                            }
                            case "Key" -> {
                                if (inContents) key = java.net.URLDecoder.decode(r.getElementText(), StandardCharsets.UTF_8);
                            }
                            case "Size" -> {
                                if (inContents) size = Long.parseLong(r.getElementText().trim());
                            }
                            case "IsTruncated" -> truncated = Boolean.parseBoolean(r.getElementText().trim());
                            case "NextContinuationToken" -> next = r.getElementText();
                            default -> { }
                        }
                    } else if (event == javax.xml.stream.XMLStreamConstants.END_ELEMENT
                            && r.getLocalName().equals("Contents")) {
                        if (key != null) objects.add(new StoredObject(key, size));
                        inContents = false;
                    }
                }
            } catch (javax.xml.stream.XMLStreamException | RuntimeException e) {
                throw new IOException("an answer to LIST that is no ListBucketResult: " + e.getMessage(), e);
            }
            return new ListPage(objects, truncated, next);
        }
    }

    /** The keys a quiet DeleteObjects answer names as not deleted, each {@code {key, code, message}}. */
    static final class DeleteErrors {
        private DeleteErrors() {
        }

        static List<String[]> read(InputStream body) throws IOException {
            List<String[]> failed = new ArrayList<>();
            try {
                javax.xml.stream.XMLStreamReader r = xmlReader(body);
                String[] error = null;
                while (r.hasNext()) {
                    int event = r.next();
                    if (event == javax.xml.stream.XMLStreamConstants.START_ELEMENT) {
                        switch (r.getLocalName()) {
                            case "Error" -> error = new String[] {"", "", ""};
                            case "Key" -> {
                                if (error != null) error[0] = r.getElementText();
                            }
                            case "Code" -> {
                                if (error != null) error[1] = r.getElementText();
                            }
                            case "Message" -> {
                                if (error != null) error[2] = r.getElementText();
                            }
                            default -> { }
                        }
                    } else if (event == javax.xml.stream.XMLStreamConstants.END_ELEMENT
                            && r.getLocalName().equals("Error") && error != null) {
                        failed.add(error);
                        error = null;
                    }
                }
            } catch (javax.xml.stream.XMLStreamException | RuntimeException e) {
                throw new IOException("an answer to DELETE OBJECTS that is no DeleteResult: " + e.getMessage(), e);
            }
            return failed;
        }
    }

    private static javax.xml.stream.XMLStreamReader xmlReader(InputStream body)
            throws javax.xml.stream.XMLStreamException {
        javax.xml.stream.XMLInputFactory f = javax.xml.stream.XMLInputFactory.newDefaultFactory();
        f.setProperty(javax.xml.stream.XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(javax.xml.stream.XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        return f.createXMLStreamReader(body, "UTF-8");
    }

    /** What a successful answer gives, from its head (then its body is read to the end and closed). */
    private interface Success<T> {
        T of(SdkHttpResponse response);
    }

    /** What a successful answer gives, from its head and its body (then read to the end and closed). */
    private interface Answered<T> {
        T of(SdkHttpResponse response, InputStream body) throws IOException;
    }

    /**
     * Sends {@code call} within the request timeout: a 2xx answer gives {@code success}, one of {@code absent}
     * gives empty, any other throws as the SDK's call would.
     */
    private <T> Optional<T> send(String operation, String key, ExecutableHttpRequest call, Success<T> success,
                                 int... absent) throws StoreException {
        return send(operation, key, call, (Answered<T>) (response, body) -> success.of(response), absent);
    }

    private <T> Optional<T> send(String operation, String key, ExecutableHttpRequest call, Answered<T> success,
                                 int... absent) throws StoreException {
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> deadline = timer.schedule(() -> {
            timedOut.set(true);
            call.abort();
        }, timeout.toNanos(), TimeUnit.NANOSECONDS);
        try {
            HttpExecuteResponse response = call.call();
            int status = response.httpResponse().statusCode();
            Optional<InputStream> body = response.responseBody().map(b -> (InputStream) b);
            boolean missing = false;
            for (int a : absent) missing |= status == a;
            if (status / 100 == 2 || missing) {
                try (InputStream in = body.orElse(InputStream.nullInputStream())) {
                    // closing reads the rest and hands the connection back
                    return missing ? Optional.empty() : Optional.ofNullable(success.of(response.httpResponse(), in));
                }
            }
            byte[] document = body.isPresent() ? errorDocument(body.get()) : new byte[0];
            throw failure(operation, key, status, document, response);
        } catch (IOException e) {
            if (timedOut.get()) {
                SocketTimeoutException t = new SocketTimeoutException("no complete answer within " + timeout);
                t.initCause(e);
                throw StoreFailures.transport(operation, bucket, key, t);
            }
            throw StoreFailures.withoutAnswer(operation, bucket, key, e);
        } finally {
            deadline.cancel(false);
        }
    }

    private FilePutHttpClient.Head signed(String key, long length, String contentType, String crc32c,
                                          Map<String, String> metadata, Map<String, String> conditions) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", contentType);
        headers.put("Content-Length", Long.toString(length));
        headers.put(ChecksummedBodySigner.CHECKSUM_HEADER, crc32c);
        // no body to hold back: a store answers at once, and the connection stays usable
        if (length > 0) headers.put("Expect", "100-continue");
        headers.put("User-Agent", "iggy-s3-sink");
        headers.putAll(conditions);
        headers.putAll(optionHeaders);
        headers.putAll(AdapterSupport.metadataHeaders(metadata));
        return signed(SdkHttpMethod.PUT, key, headers);
    }

    /**
     * A request on {@code key} without a body, with {@code headers} and the User-Agent, signed; a failure to sign
     * (credentials that cannot be resolved) fails {@code operation} as a request the store never answered.
     */
    private FilePutHttpClient.Head signedOrFail(String operation, SdkHttpMethod method, String key,
                                                Map<String, String> headers) throws StoreException {
        try {
            Map<String, String> all = new LinkedHashMap<>(headers);
            all.put("User-Agent", "iggy-s3-sink");
            return signed(method, key, all);
        } catch (RuntimeException e) {
            throw StoreFailures.withoutAnswer(operation, bucket, key, e);
        }
    }

    private FilePutHttpClient.Head signed(SdkHttpMethod method, String key, Map<String, String> headers) {
        String path = bucketPath + SdkHttpUtils.urlEncodeIgnoreSlashes(key);
        // A slash doubled in the key (or leading it) is sent as the SDK sends it, "/%2F", so that a store that
        // cleans paths does not take "a//b" for "a/b"; the signature is over the path as the store decodes it.
        String sent = path.replace("//", "/%2F");
        AwsCredentials identity = credentials.resolveCredentials();
        Instant now = clock.instant().plusMillis(skewMillis);
        String hostHeader = FilePutHttpClient.Head.hostHeader(host, port);
        headers.putAll(signature(method, path, headers, identity, now));
        return new FilePutHttpClient.Head(host, port, hostHeader, sent, List.copyOf(headers.entrySet()));
    }

    /** A request on the bucket itself with {@code query} (names and values as given, encoded here), signed. */
    private FilePutHttpClient.Head signedOnBucket(SdkHttpMethod method, Map<String, String> query,
                                                  Map<String, String> headers) {
        StringBuilder target = new StringBuilder(bucketPath);
        char sep = '?';
        for (Map.Entry<String, String> q : query.entrySet()) {
            target.append(sep).append(SdkHttpUtils.urlEncode(q.getKey()));
            if (!q.getValue().isEmpty()) target.append('=').append(SdkHttpUtils.urlEncode(q.getValue()));
            sep = '&';
        }
        AwsCredentials identity = credentials.resolveCredentials();
        Instant now = clock.instant().plusMillis(skewMillis);
        headers.putAll(signature(method, bucketPath, query, headers, identity, now));
        return new FilePutHttpClient.Head(host, port, FilePutHttpClient.Head.hostHeader(host, port), target.toString(),
                List.copyOf(headers.entrySet()));
    }

    /**
     * The headers the SDK's signer adds (x-amz-date, x-amz-content-sha256, the session token, Authorization), not
     * Host, which the client sends: signed as https, port 80 as 443, as {@link ChecksummedBodySigner} signs.
     */
    private Map<String, String> signature(SdkHttpMethod method, String path, Map<String, String> headers,
                                          AwsCredentials identity, Instant now) {
        return signature(method, path, Map.of(), headers, identity, now);
    }

    private Map<String, String> signature(SdkHttpMethod method, String path, Map<String, String> query,
                                          Map<String, String> headers, AwsCredentials identity, Instant now) {
        SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(method).protocol("https").host(host)
                .port(port == 80 ? 443 : port).encodedPath(path);
        query.forEach(b::putRawQueryParameter);
        headers.forEach(b::putHeader);
        SdkHttpRequest request = b.build();
        SdkHttpRequest signed = signer.sign(r -> r
                .identity(identity)
                .request(request)
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                .putProperty(AwsV4HttpSigner.SIGNING_CLOCK, Clock.fixed(now, ZoneOffset.UTC))).request();
        Map<String, String> added = new LinkedHashMap<>();
        signed.forEachHeader((name, values) -> {
            if (!name.equalsIgnoreCase("Host") && request.firstMatchingHeader(name).isEmpty()) {
                added.put(name, String.join(",", values));
            }
        });
        return added;
    }

    /**
     * As much of an error answer's body as came, up to {@link #MAX_ERROR_BODY}: an answer cut in its body still
     * has its status, which is what the SDK reports for it too (a 500 stays a 500, not a failure without answer).
     */
    private static byte[] errorDocument(InputStream body) {
        ByteArrayOutputStream document = new ByteArrayOutputStream();
        byte[] block = new byte[8192];
        try (body) {
            int n;
            while (document.size() < MAX_ERROR_BODY
                    && (n = body.read(block, 0, Math.min(block.length, MAX_ERROR_BODY - document.size()))) > 0) {
                document.write(block, 0, n);
            }
        } catch (IOException e) {
            // cut short: what came is the document
        }
        return document.toByteArray();
    }

    private StoreException failure(String operation, String key, int status, byte[] document,
                                   HttpExecuteResponse response) {
        String xml = new String(document, StandardCharsets.UTF_8);
        String code = element(xml, "Code");
        String message = element(xml, "Message");
        if (code != null && SKEW_CODES.contains(code)) {
            response.httpResponse().firstMatchingHeader("Date").flatMap(PlainHttpPut::httpDate).ifPresent(storeTime ->
                    skewMillis = storeTime.toEpochMilli() - clock.millis());
        }
        String retryAfter = response.httpResponse().firstMatchingHeader("Retry-After").orElse(null);
        return StoreFailures.fromStatus(operation, bucket, key, status, code, message, retryAfter, null);
    }

    /** The text of the first {@code <name>} element of an S3 error document, unescaped; null when there is none. */
    static String element(String xml, String name) {
        int open = xml.indexOf("<" + name + ">");
        if (open < 0) return null;
        int from = open + name.length() + 2;
        int close = xml.indexOf("</" + name + ">", from);
        if (close < 0) return null;
        return xml.substring(from, close)
                .replace("&lt;", "<").replace("&gt;", ">").replace("&quot;", "\"").replace("&apos;", "'")
                .replace("&amp;", "&");
    }

    private static Optional<Instant> httpDate(String value) {
        try {
            return Optional.of(ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME).toInstant());
        } catch (DateTimeParseException e) {
            return Optional.empty();
        }
    }

    /** The offset learnt from the store's skew answers, in milliseconds (for tests). */
    long skewMillis() {
        return skewMillis;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
