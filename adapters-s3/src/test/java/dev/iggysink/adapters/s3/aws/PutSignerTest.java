package dev.iggysink.adapters.s3.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.http.SdkHttpMethod;
import software.amazon.awssdk.http.SdkHttpRequest;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4FamilyHttpSigner;
import software.amazon.awssdk.http.auth.aws.signer.AwsV4HttpSigner;
import software.amazon.awssdk.utils.http.SdkHttpUtils;

/**
 * {@link PutSigner} against the SDK's own SigV4 signer: for the same request, credentials and time both give the
 * same signed headers, whatever the key, port, headers, session token, region and day.
 */
class PutSignerTest {
    private static final AwsCredentials BASIC = AwsBasicCredentials.create("AKIDEXAMPLE",
            "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    private static final AwsCredentials SESSION = AwsSessionCredentials.create("ASIAEXAMPLE",
            "another/secret+key", "FwoGZXIvYXdzEBYaDH//session+token==");

    @Test
    void a_put_is_signed_as_the_sdk_signs_it() {
        Map<String, String> plain = headers("application/json", 8_388_608, "yZRlqg==");
        assertSameAsSdk("us-east-1", "127.0.0.1", 9000, "bucket", "sink/events/0/00000000000000000000.json",
                plain, BASIC, Instant.parse("2026-12-01T20:15:07Z"));
        assertSameAsSdk("eu-central-1", "minio.local", 80, "bucket", "a/b.json", plain, BASIC,
                Instant.parse("2026-02-28T00:00:00Z"));
    }

    @Test
    void keys_with_reserved_spaces_and_non_ascii_characters_are_signed_as_sent() {
        Map<String, String> plain = headers("application/x-ndjson", 17, "AAAAAA==");
        for (String key : new String[] {"a b/c+d=e&f", "k%20y/~tilde/*star*", "région/日本/emoji-\uD83D\uDE00.json",
                "trailing/", "semi;colon,comma:colon@at!bang'quote(paren)$dollar"}) {
            assertSameAsSdk("us-west-2", "127.0.0.1", 9000, "my-bucket.v2", key, plain, BASIC,
                    Instant.parse("2026-07-04T12:34:56Z"));
        }
    }

    @Test
    void object_option_headers_and_a_session_token_are_signed() {
        Map<String, String> withOptions = headers("application/json", 1024, "yZRlqg==");
        withOptions.put("x-amz-server-side-encryption", "aws:kms");
        withOptions.put("x-amz-server-side-encryption-aws-kms-key-id", "arn:aws:kms:us-east-1:1:key/abc");
        withOptions.put("x-amz-storage-class", "STANDARD_IA");
        withOptions.put("x-amz-acl", "bucket-owner-full-control");
        withOptions.put("x-amz-tagging", "team=data%20lake&env=prod");
        withOptions.put("Cache-Control", "  no-cache,   no-store  ");
        assertSameAsSdk("us-east-1", "10.0.0.7", 9000, "bucket", "x.json", withOptions, SESSION,
                Instant.parse("2026-12-01T23:59:59Z"));
        assertSameAsSdk("us-east-1", "10.0.0.7", 9000, "bucket", "x.json", withOptions, BASIC,
                Instant.parse("2026-12-02T00:00:01Z"));
    }

    /** The user metadata PlainHttpPut sends as x-amz-meta-* headers: signed, so a proxy cannot change them. */
    @Test
    void user_metadata_headers_are_signed_as_the_sdk_signs_them() {
        Map<String, String> withMetadata = headers("application/x-ndjson", 8_388_608, "yZRlqg==");
        withMetadata.put("x-amz-server-side-encryption", "AES256");
        withMetadata.put("x-amz-meta-iggy-offsets", "1000-1999");
        withMetadata.put("x-amz-meta-iggy-records", "1000");
        withMetadata.put("x-amz-meta-iggy-first", "1000/340282366920938463463374607431768211455/1767225600000000");
        withMetadata.put("x-amz-meta-iggy-last", "1999/7/1767225600999999");
        withMetadata.put("x-amz-meta-a", "  spaced   out  value ");
        withMetadata.put("x-amz-meta-0-9", "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~");
        assertSameAsSdk("us-east-1", "127.0.0.1", 9000, "bucket", "sink/events/0/00000000000000001000.json",
                withMetadata, BASIC, Instant.parse("2026-12-01T20:15:07Z"));
        assertSameAsSdk("eu-west-1", "minio.local", 80, "bucket", "k", withMetadata, SESSION,
                Instant.parse("2026-06-30T23:59:59Z"));

        Map<String, String> ours = new PutSigner("us-east-1", "s3").sign("PUT", "127.0.0.1:9000", "/bucket/k",
                withMetadata, BASIC.accessKeyId(), BASIC.secretAccessKey(), null,
                Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(ours.get("Authorization")).contains("x-amz-meta-0-9;x-amz-meta-a;x-amz-meta-iggy-first;"
                + "x-amz-meta-iggy-last;x-amz-meta-iggy-offsets;x-amz-meta-iggy-records;");
    }

    @Test
    void the_days_signing_key_is_derived_again_for_a_new_day_or_a_new_secret() {
        PutSigner signer = new PutSigner("us-east-1", "s3");
        Map<String, String> plain = headers("application/json", 10, "AAAAAA==");
        Instant[] times = {Instant.parse("2026-12-01T23:59:59Z"), Instant.parse("2026-12-02T00:00:00Z"),
                Instant.parse("2026-12-02T00:00:00Z"), Instant.parse("2026-12-01T10:00:00Z")};
        AwsCredentials[] identities = {BASIC, BASIC, SESSION, BASIC};
        for (int i = 0; i < times.length; i++) {
            String host = "127.0.0.1:9000";
            Map<String, String> ours = signer.sign("PUT", host, "/bucket/k", plain, identities[i].accessKeyId(),
                    identities[i].secretAccessKey(), token(identities[i]), times[i]);
            assertThat(lower(ours)).as("signature %d", i)
                    .isEqualTo(sdkSigned("us-east-1", "127.0.0.1", 9000, "/bucket/k", plain, identities[i], times[i]));
        }
    }

    @Test
    void buckets_and_keys_are_encoded_as_the_sdk_encodes_them() {
        Random random = new Random(20261201);
        String alphabet = "aZ09-._~/ +*%&=?#!$'()[]@:;,\\\"<>^`{|}\u00e9\u00ff\u0100\u65e5\uD83D\uDE00\t\n\u0000\u007f";
        for (int i = 0; i < 5_000; i++) {
            StringBuilder text = new StringBuilder();
            int length = random.nextInt(24);
            for (int j = 0; j < length; j++) text.append(alphabet.charAt(random.nextInt(alphabet.length())));
            if (random.nextInt(50) == 0) text.append('\uD800'); // a lone surrogate: both write '?'
            String s = text.toString();
            assertThat(PutSigner.encode(s, true)).as("key %s", s).isEqualTo(SdkHttpUtils.urlEncodeIgnoreSlashes(s));
            assertThat(PutSigner.encode(s, false)).as("bucket %s", s).isEqualTo(SdkHttpUtils.urlEncode(s));
        }
    }

    @Test
    void nothing_of_the_secret_shows_in_what_the_signer_prints() {
        PutSigner signer = new PutSigner("us-east-1", "s3");
        Map<String, String> signed = signer.sign("PUT", "h", "/b/k", headers("a/b", 1, "AAAAAA=="), "AKID",
                "the-secret-value", null, Instant.parse("2026-12-01T00:00:00Z"));
        assertThat(signed.toString()).doesNotContain("the-secret-value");
        assertThat(signer.toString()).doesNotContain("the-secret-value");
    }

    private static Map<String, String> headers(String contentType, long length, String crc32c) {
        Map<String, String> h = new LinkedHashMap<>();
        h.put("Content-Type", contentType);
        h.put("Content-Length", Long.toString(length));
        h.put(ChecksummedBodySigner.CHECKSUM_HEADER, crc32c);
        h.put("Expect", "100-continue");
        h.put("User-Agent", "iggy-s3-sink");
        return h;
    }

    private static void assertSameAsSdk(String region, String host, int port, String bucket, String key,
                                        Map<String, String> headers, AwsCredentials identity, Instant now) {
        String path = "/" + SdkHttpUtils.urlEncode(bucket) + "/" + SdkHttpUtils.urlEncodeIgnoreSlashes(key);
        Map<String, String> ours = new PutSigner(region, "s3").sign("PUT", FilePutHttpClient.Head.hostHeader(host,
                port), path, headers, identity.accessKeyId(), identity.secretAccessKey(), token(identity), now);
        assertThat(lower(ours)).as("%s %s:%d %s", region, host, port, key)
                .isEqualTo(sdkSigned(region, host, port, path, headers, identity, now));
        assertThat(ours.get("Authorization")).contains("Credential=" + identity.accessKeyId() + "/");
    }

    private static Map<String, String> lower(Map<String, String> headers) {
        Map<String, String> lower = new TreeMap<>();
        headers.forEach((name, value) -> lower.put(name.toLowerCase(Locale.ROOT), value));
        return lower;
    }

    private static String token(AwsCredentials identity) {
        return identity instanceof AwsSessionCredentials s ? s.sessionToken() : null;
    }

    /** The headers but Host the SDK's signer adds to the same request (signed as https, port 80 as 443). */
    private static Map<String, String> sdkSigned(String region, String host, int port, String path,
                                                 Map<String, String> headers, AwsCredentials identity,
                                                 Instant now) {
        SdkHttpRequest.Builder b = SdkHttpRequest.builder().method(SdkHttpMethod.PUT).protocol("https").host(host)
                .port(port == 80 ? 443 : port).encodedPath(path);
        headers.forEach(b::putHeader);
        SdkHttpRequest request = b.build();
        SdkHttpRequest signed = AwsV4HttpSigner.create().sign(r -> r
                .identity(identity)
                .request(request)
                .putProperty(AwsV4HttpSigner.SERVICE_SIGNING_NAME, "s3")
                .putProperty(AwsV4HttpSigner.REGION_NAME, region)
                .putProperty(AwsV4HttpSigner.DOUBLE_URL_ENCODE, false)
                .putProperty(AwsV4HttpSigner.NORMALIZE_PATH, false)
                .putProperty(AwsV4FamilyHttpSigner.PAYLOAD_SIGNING_ENABLED, false)
                .putProperty(AwsV4HttpSigner.SIGNING_CLOCK, Clock.fixed(now, ZoneOffset.UTC))).request();
        Map<String, String> added = new TreeMap<>();
        signed.forEachHeader((name, values) -> {
            if (request.firstMatchingHeader(name).isEmpty()) {
                added.put(name.toLowerCase(Locale.ROOT), String.join(",", values));
            }
        });
        // The SDK also sets the Host header it signed; the client sends the same one (no port for 80).
        assertThat(added.remove("host")).isEqualTo(FilePutHttpClient.Head.hostHeader(host, port));
        return added;
    }
}
