package dev.iggysink.adapters.config;

import dev.iggysink.domain.naming.KeyRules;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What the object store will refuse, checked at load time so that {@code validate} rejects a value before {@code run}
 * trips over it: endpoint URLs, bucket names (S3's naming rules; MinIO enforces the same for path-style buckets) and
 * the fixed parts of object keys. Each check returns the problem in words, or empty.
 */
final class StoreRules {
    static final String BUCKET_RULE = "S3 bucket names are 3 to 63 lowercase letters, digits, dots and hyphens, "
            + "begin and end with a letter or digit, and are not IP addresses";
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    private static final List<String> RESERVED_PREFIXES = List.of("xn--", "sthree-", "amzn-s3-demo-");
    private static final List<String> RESERVED_SUFFIXES = List.of("-s3alias", "--ol-s3", ".mrap", "--table-s3");

    private StoreRules() {
    }

    /** {@code http(s)://host[:port][/path]}; a bare {@code host:port} used to become https and fail in TLS. */
    static Optional<String> endpointProblem(String endpoint) {
        if (!endpoint.contains("://")) {
            return Optional.of(quote(endpoint) + " has no scheme (write http://" + endpoint + ", or https://"
                    + endpoint + " for TLS)");
        }
        URI uri;
        try {
            uri = new URI(endpoint);
        } catch (URISyntaxException e) {
            String reason = e.getReason();
            reason = reason.isEmpty() ? reason : Character.toLowerCase(reason.charAt(0)) + reason.substring(1);
            return Optional.of(quote(endpoint) + " is not a URL: " + reason
                    + (e.getIndex() >= 0 ? " at index " + e.getIndex() : "") + " (e.g. http://127.0.0.1:9000)");
        }
        String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            return Optional.of(quote(endpoint) + " is not an http:// or https:// URL");
        }
        if (uri.getHost() == null || uri.getHost().isEmpty()) {
            // java.net.URI (and the S3 clients after it) finds no host in "minio_1:9000": underscores are not allowed.
            return Optional.of(quote(endpoint) + (uri.getAuthority() == null ? " has no host name"
                    : " has no valid host name (letters, digits, dots and hyphens, or an IP address)")
                    + " (e.g. http://127.0.0.1:9000)");
        }
        return Optional.empty();
    }

    static Optional<String> bucketProblem(String bucket) {
        return bucketReason(bucket).map(reason -> quote(bucket) + " is not a valid bucket name: " + reason + " ("
                + BUCKET_RULE + ")");
    }

    private static Optional<String> bucketReason(String b) {
        if (b.length() < 3) return Optional.of("shorter than 3 characters");
        if (b.length() > 63) return Optional.of("longer than 63 characters");
        for (int i = 0; i < b.length(); i++) {
            char c = b.charAt(i);
            boolean ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
            if (!ok) return Optional.of(quote(String.valueOf(c)) + " is not allowed");
        }
        if (!isAlnum(b.charAt(0)) || !isAlnum(b.charAt(b.length() - 1))) {
            return Optional.of("it must begin and end with a letter or digit");
        }
        for (String pair : List.of("..", ".-", "-.")) {
            if (b.contains(pair)) return Optional.of(quote(pair) + " is not allowed");
        }
        if (IPV4.matcher(b).matches()) return Optional.of("it is an IP address");
        for (String p : RESERVED_PREFIXES) {
            if (b.startsWith(p)) return Optional.of("the prefix " + quote(p) + " is reserved");
        }
        for (String s : RESERVED_SUFFIXES) {
            if (b.endsWith(s)) return Optional.of("the suffix " + quote(s) + " is reserved");
        }
        return Optional.empty();
    }

    private static boolean isAlnum(char c) {
        return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    }

    /**
     * A fixed part of every key (a prefix, or a template's text), slashes at both ends already dropped: no control
     * character (a NUL ends the key in some tools, and S3 and MinIO refuse several), and no empty, {@code .} or
     * {@code ..} segment, which MinIO refuses and file-system backed stores resolve.
     */
    static Optional<String> keyPartProblem(String part) {
        for (int i = 0; i < part.length(); i++) {
            char c = part.charAt(i);
            if (c < 0x20 || c == 0x7f) {
                return Optional.of(quote(part) + " has a control character (U+" + String.format("%04X", (int) c)
                        + "); object keys must not have any");
            }
        }
        return KeyRules.segmentProblem(part);
    }

    /** A value in a message: quoted, control characters escaped, long ones shortened with their length. */
    static String quote(String value) {
        return KeyRules.quote(value);
    }
}
