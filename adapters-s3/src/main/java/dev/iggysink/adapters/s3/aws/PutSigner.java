package dev.iggysink.adapters.s3.aws;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.time.LocalDate;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * SigV4 for {@link PlainHttpPut}'s requests: {@code UNSIGNED-PAYLOAD}, no query, every header signed but
 * {@code User-Agent} and {@code Expect} (which the SDK's signer leaves out too), the path as given (neither
 * normalised nor encoded twice, as S3 wants it). Gives the same {@code Authorization} as the SDK's
 * {@code AwsV4HttpSigner} for such a request ({@code PutSignerTest} compares them).
 *
 * <p>Why not the SDK's signer: a sink signs one request per file, too few for the JIT to compile the signer's
 * generic code (request builders, header maps copied with case-insensitive comparators, signing properties), which
 * then runs interpreted on every PUT (figures: docs/adr/0009-whole-object-puts-without-the-sdk-pipeline.md); this
 * class does the same work in a few string appends, one
 * SHA-256 and one HMAC, with the day's signing key kept (it only changes with the date, region or secret).
 *
 * <p>Thread-safe. Holds the day's signing key and the secret it came from (to see when the credentials change),
 * as the credentials provider does; nothing of them is ever printed (no {@code toString}).
 */
final class PutSigner {
    private static final String UNSIGNED_PAYLOAD = "UNSIGNED-PAYLOAD";
    private static final int SECONDS_PER_DAY = 86_400;
    private static final char[] HEX = "0123456789abcdef".toCharArray();
    private static final char[] UPPER_HEX = "0123456789ABCDEF".toCharArray();

    private final String region;
    private final String service;
    /** The day's signing key with what it was derived from; replaced as a whole. */
    private volatile DayKey dayKey;
    /** Per thread (uploads run on several): a SHA-256 digest, and an HMAC with the key it was last given. */
    private final ThreadLocal<MessageDigest> sha256 = ThreadLocal.withInitial(PutSigner::newSha256);
    private final ThreadLocal<KeyedMac> macs = ThreadLocal.withInitial(KeyedMac::new);

    PutSigner(String region, String service) {
        this.region = region;
        this.service = service;
    }

    /**
     * The headers to add to the request for its signature: {@code x-amz-date}, {@code x-amz-content-sha256},
     * {@code x-amz-security-token} when {@code sessionToken} is not null, {@code Authorization}.
     *
     * @param host        the Host header as sent (with the port unless it is 80)
     * @param encodedPath the request path, already percent-encoded
     * @param headers     the request's other headers (not Host), names as sent
     */
    Map<String, String> sign(String method, String host, String encodedPath, Map<String, String> headers,
                             String accessKeyId, String secretAccessKey, String sessionToken, Instant now) {
        long epochDay = Math.floorDiv(now.getEpochSecond(), SECONDS_PER_DAY);
        String day = day(epochDay);
        String amzDate = day + 'T' + clock(now.getEpochSecond() - epochDay * SECONDS_PER_DAY) + 'Z';
        Map<String, String> added = new TreeMap<>();
        added.put("x-amz-date", amzDate);
        added.put("x-amz-content-sha256", UNSIGNED_PAYLOAD);
        if (sessionToken != null) added.put("x-amz-security-token", sessionToken);

        TreeMap<String, String> signed = new TreeMap<>();
        signed.put("host", host);
        headers.forEach((name, value) -> {
            String lower = name.toLowerCase(Locale.ROOT);
            if (!lower.equals("user-agent") && !lower.equals("expect")) {
                signed.merge(lower, value, (a, b) -> a + "," + b);
            }
        });
        added.forEach(signed::put);

        StringBuilder canonical = new StringBuilder(512);
        canonical.append(method).append('\n').append(encodedPath).append("\n\n");
        StringBuilder names = new StringBuilder(160);
        for (Map.Entry<String, String> h : signed.entrySet()) {
            canonical.append(h.getKey()).append(':');
            trimmed(canonical, h.getValue());
            canonical.append('\n');
            if (names.length() > 0) names.append(';');
            names.append(h.getKey());
        }
        canonical.append('\n').append(names).append('\n').append(UNSIGNED_PAYLOAD);

        String scope = day + "/" + region + "/" + service + "/aws4_request";
        MessageDigest digest = sha256.get();
        String canonicalHash = hex(digest.digest(canonical.toString().getBytes(StandardCharsets.UTF_8)));
        String toSign = "AWS4-HMAC-SHA256\n" + amzDate + "\n" + scope + "\n" + canonicalHash;
        DayKey key = key(day, secretAccessKey);
        String signature = hex(macs.get().with(key).doFinal(toSign.getBytes(StandardCharsets.UTF_8)));
        added.put("Authorization", "AWS4-HMAC-SHA256 Credential=" + accessKeyId + "/" + scope
                + ", SignedHeaders=" + names + ", Signature=" + signature);
        return added;
    }

    private DayKey key(String day, String secret) {
        DayKey k = dayKey;
        if (k != null && k.day.equals(day) && k.secret.equals(secret)) return k;
        byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), day.getBytes(StandardCharsets.UTF_8));
        key = hmac(key, region.getBytes(StandardCharsets.UTF_8));
        key = hmac(key, service.getBytes(StandardCharsets.UTF_8));
        key = hmac(key, "aws4_request".getBytes(StandardCharsets.UTF_8));
        k = new DayKey(day, secret, new SecretKeySpec(key, "HmacSHA256"));
        dayKey = k;
        return k;
    }

    /**
     * {@code text} percent-encoded as the SDK encodes a bucket or key ({@code SdkHttpUtils.urlEncode}, and
     * {@code urlEncodeIgnoreSlashes} with {@code keepSlashes}): UTF-8, every byte but {@code A-Z a-z 0-9 - . _ ~} as
     * {@code %XX}. Its own loop because the SDK's goes through {@code URLEncoder} and three replacements, a third of
     * a millisecond per PUT while interpreted.
     */
    static String encode(String text, boolean keepSlashes) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        StringBuilder out = new StringBuilder(bytes.length + 16);
        for (byte b : bytes) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_'
                    || c == '~' || c == '/' && keepSlashes) {
                out.append((char) c);
            } else {
                out.append('%').append(UPPER_HEX[c >> 4]).append(UPPER_HEX[c & 0xf]);
            }
        }
        return out.toString();
    }

    /** yyyyMMdd of a day since the epoch (UTC). */
    private static String day(long epochDay) {
        LocalDate date = LocalDate.ofEpochDay(epochDay);
        StringBuilder b = new StringBuilder(8);
        int year = date.getYear();
        if (year < 1000 || year > 9999) throw new IllegalArgumentException("signing time out of range: " + date);
        b.append(year);
        two(b, date.getMonthValue());
        two(b, date.getDayOfMonth());
        return b.toString();
    }

    /** HHmmss of a second of the day. */
    private static String clock(long secondOfDay) {
        StringBuilder b = new StringBuilder(6);
        two(b, (int) (secondOfDay / 3600));
        two(b, (int) (secondOfDay / 60 % 60));
        two(b, (int) (secondOfDay % 60));
        return b.toString();
    }

    private static void two(StringBuilder b, int value) {
        b.append((char) ('0' + value / 10)).append((char) ('0' + value % 10));
    }

    /** A header value as SigV4 canonicalises it: no leading or trailing blanks, inner runs of them as one space. */
    private static void trimmed(StringBuilder out, String value) {
        int from = 0;
        int to = value.length();
        while (from < to && blank(value.charAt(from))) from++;
        while (to > from && blank(value.charAt(to - 1))) to--;
        boolean blank = false;
        for (int i = from; i < to; i++) {
            char c = value.charAt(i);
            if (blank(c)) {
                blank = true;
                continue;
            }
            if (blank) out.append(' ');
            blank = false;
            out.append(c);
        }
    }

    private static boolean blank(char c) {
        return c == ' ' || c == '\t';
    }

    private static MessageDigest newSha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no SHA-256", e);
        }
    }

    private static Mac newMac() {
        try {
            return Mac.getInstance("HmacSHA256");
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("this JVM has no HmacSHA256", e);
        }
    }

    private static byte[] hmac(byte[] key, byte[] data) {
        Mac mac = newMac();
        try {
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 refused a key", e);
        }
        return mac.doFinal(data);
    }

    /** A thread's HMAC, initialised with the last day key it was used with. */
    private static final class KeyedMac {
        private final Mac mac = newMac();
        private DayKey key;

        Mac with(DayKey k) {
            if (k != key) {
                try {
                    mac.init(k.key);
                } catch (GeneralSecurityException e) {
                    throw new IllegalStateException("HmacSHA256 refused a key", e);
                }
                key = k;
            }
            return mac;
        }
    }

    private static String hex(byte[] bytes) {
        char[] out = new char[bytes.length * 2];
        for (int i = 0; i < bytes.length; i++) {
            out[2 * i] = HEX[(bytes[i] >> 4) & 0xf];
            out[2 * i + 1] = HEX[bytes[i] & 0xf];
        }
        return new String(out);
    }

    /** Deliberately no toString: neither the secret nor the key is ever printed. */
    private static final class DayKey {
        final String day;
        final String secret;
        final SecretKeySpec key;

        DayKey(String day, String secret, SecretKeySpec key) {
            this.day = day;
            this.secret = secret;
            this.key = key;
        }
    }
}
