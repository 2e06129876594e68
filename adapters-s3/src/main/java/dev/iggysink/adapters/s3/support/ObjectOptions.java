package dev.iggysink.adapters.s3.support;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;

import dev.iggysink.adapters.s3.StorageSettings;

/**
 * The per-object options of the settings (SSE, storage class, canned ACL, tags) as S3 request values. Sent on
 * PutObject and CreateMultipartUpload (parts inherit them), and on the probe, so the probe fails where a bucket
 * policy would reject the real writes.
 */
public record ObjectOptions(Optional<String> sse, Optional<String> sseKmsKeyId, Optional<String> storageClass,
                            Optional<String> cannedAcl, Optional<String> tagging) {

    public static ObjectOptions from(StorageSettings settings) {
        // A KMS key id alone means aws:kms: S3 would reject the key id header without the algorithm.
        Optional<String> sse = settings.sse().or(() -> settings.sseKmsKeyId().map(k -> "aws:kms"));
        return new ObjectOptions(sse, settings.sseKmsKeyId(), settings.storageClass(), settings.cannedAcl(),
                tagging(settings.objectTags()));
    }

    /** {@code x-amz-tagging}: URL-query encoded, keys sorted so the same settings give the same header. */
    public static Optional<String> tagging(Map<String, String> tags) {
        if (tags.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(new TreeMap<>(tags).entrySet().stream()
                .map(e -> encode(e.getKey()) + "=" + encode(e.getValue()))
                .collect(Collectors.joining("&")));
    }

    /** The same options as raw {@code x-amz-*} headers (for clients without typed setters). */
    public Map<String, String> headers() {
        Map<String, String> headers = new LinkedHashMap<>();
        sse.ifPresent(v -> headers.put("x-amz-server-side-encryption", v));
        sseKmsKeyId.ifPresent(v -> headers.put("x-amz-server-side-encryption-aws-kms-key-id", v));
        storageClass.ifPresent(v -> headers.put("x-amz-storage-class", v));
        cannedAcl.ifPresent(v -> headers.put("x-amz-acl", v));
        tagging.ifPresent(v -> headers.put("x-amz-tagging", v));
        return headers;
    }

    private static String encode(String s) {
        // URLEncoder writes form encoding; S3 decodes tags as RFC 3986 query text, where '+' is not a space.
        return URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
