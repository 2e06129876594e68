package dev.iggysink.adapters.format.json;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;

/**
 * Float text as Rust prints it. {@link #ryu} is serde_json's (and simd_json's) number form: the shortest digits that
 * read back to the same double, laid out by ryu's rules ({@code 1.0}, {@code 12.5}, {@code 0.0001},
 * {@code 1e-5}→{@code 0.00001}, {@code 1e-7}, {@code 1e+16}, {@code 1.5e+300}; the {@code +} is zmij's, the printer
 * of serde_json 1.0.149 that the upstream workspace pins). Java 17's {@code Double.toString} is
 * neither always shortest nor laid out this way: its digits are used only when they are provably the shortest
 * ({@link #ryuFast}); otherwise the digits are searched with exact decimals ({@link #ryuExact}).
 */
public final class DoubleFormat {
    private DoubleFormat() {
    }

    /** ryu's {@code format_finite}; the caller never passes NaN or infinities (serde_json cannot hold them). */
    public static String ryu(double d) {
        if (d == 0) return (Double.doubleToRawLongBits(d) < 0) ? "-0.0" : "0.0";
        String fast = ryuFast(d);
        return fast != null ? fast : ryuExact(d);
    }

    /** The exact search: BigDecimal digits, any finite non-zero double. */
    public static String ryuExact(double d) {
        BigDecimal v = shortestDouble(Math.abs(d)).stripTrailingZeros();
        return layout(d < 0, v.unscaledValue().toString(), -v.scale());
    }

    /**
     * Beyond these magnitudes the fast path is not used: any decimal of at most {@value #FAST_DIGITS} significant
     * digits maps to its own double only while neither over- nor underflow (subnormals) is near.
     */
    private static final double FAST_MIN = 1e-290;
    private static final double FAST_MAX = 1e290;

    /** 10^15 < 2^52: decimals of 15 significant digits are all told apart by doubles (DBL_DIG). */
    private static final int FAST_DIGITS = 15;

    /**
     * {@code Double.toString} always reads back to {@code d}. When its digits (without leading and trailing zeros)
     * are at most 15, no other decimal of at most 15 digits reads back to {@code d} (DBL_DIG = 15 for normal
     * doubles), so those digits are the shortest and also the closest: exactly what the exact search finds. Longer
     * ones (Java 17's may then be neither shortest nor closest) and extreme magnitudes return null.
     */
    public static String ryuFast(double d) {
        double abs = Math.abs(d);
        if (!(abs >= FAST_MIN && abs <= FAST_MAX)) return null;
        String text = Double.toString(abs);
        int n = text.length();
        int e = text.indexOf('E');
        int mantissaEnd = e >= 0 ? e : n;
        int exp10 = e >= 0 ? Integer.parseInt(text, e + 1, n, 10) : 0;
        // Java writes "i.f" or "i.fE±x": value = (i digits then f digits) x 10^(exp10 - |f|).
        int dot = text.indexOf('.');
        char[] digits = new char[mantissaEnd];
        int count = 0;
        for (int i = 0; i < mantissaEnd; i++) {
            char c = text.charAt(i);
            if (c == '.') continue;
            if (count == 0 && c == '0') continue; // leading zeros
            digits[count++] = c;
        }
        int k = exp10 - (mantissaEnd - dot - 1);
        while (count > 1 && digits[count - 1] == '0') {
            count--;
            k++;
        }
        if (count == 0 || count > FAST_DIGITS) return null;
        return layout(d < 0, new String(digits, 0, count), k);
    }

    /**
     * The double a Rust header value of kind float32 becomes: f32 {@code Display} (shortest f32 digits) read back as
     * f64. So 0.1f32 is 0.1, not 0.10000000149011612.
     */
    public static double f32AsRustF64(float f) {
        if (f == 0 || !Float.isFinite(f)) return f;
        BigDecimal digits = shortestFloat(Math.abs(f));
        double d = digits.doubleValue();
        return f < 0 ? -d : d;
    }

    private static BigDecimal shortestDouble(double abs) {
        BigDecimal exact = new BigDecimal(abs);
        // Double.toString always reads back, so its digit count bounds the search from above; existence of a
        // p-digit form is monotonic in p, so walk down until one fails.
        int upper = significantDigits(Double.toString(abs));
        BigDecimal best = pick(exact, upper, abs);
        if (best == null) {
            upper = 17;
            best = pick(exact, 17, abs);
        }
        for (int p = upper - 1; p >= 1; p--) {
            BigDecimal c = pick(exact, p, abs);
            if (c == null) break;
            best = c;
        }
        return best;
    }

    private static BigDecimal pick(BigDecimal exact, int precision, double target) {
        BigDecimal lo = exact.round(new MathContext(precision, RoundingMode.FLOOR));
        BigDecimal hi = exact.round(new MathContext(precision, RoundingMode.CEILING));
        boolean loOk = lo.doubleValue() == target;
        boolean hiOk = hi.doubleValue() == target;
        return choose(exact, lo, hi, loOk, hiOk);
    }

    private static BigDecimal shortestFloat(float abs) {
        BigDecimal exact = new BigDecimal(abs);
        BigDecimal best = null;
        for (int p = 9; p >= 1; p--) {
            BigDecimal lo = exact.round(new MathContext(p, RoundingMode.FLOOR));
            BigDecimal hi = exact.round(new MathContext(p, RoundingMode.CEILING));
            BigDecimal c = choose(exact, lo, hi, lo.floatValue() == abs, hi.floatValue() == abs);
            if (c == null) break;
            best = c;
        }
        return best;
    }

    private static BigDecimal choose(BigDecimal exact, BigDecimal lo, BigDecimal hi, boolean loOk, boolean hiOk) {
        if (loOk && hiOk) {
            int cmp = exact.subtract(lo).compareTo(hi.subtract(exact));
            if (cmp < 0) return lo;
            if (cmp > 0) return hi;
            return lo.unscaledValue().testBit(0) ? hi : lo;
        }
        if (loOk) return lo;
        if (hiOk) return hi;
        return null;
    }

    /** Significant digits of a Double.toString text: mantissa digits without leading and trailing zeros. */
    private static int significantDigits(String javaText) {
        int e = javaText.indexOf('E');
        int end = e >= 0 ? e : javaText.length();
        int first = -1;
        int last = -1;
        int count = 0;
        for (int i = 0; i < end; i++) {
            char c = javaText.charAt(i);
            if (c == '.') continue;
            if (c != '0') {
                if (first < 0) first = count;
                last = count;
            }
            count++;
        }
        int digits = first < 0 ? 0 : last - first + 1;
        return Math.max(1, Math.min(17, digits));
    }

    /**
     * ryu's pretty layout of {@code digits × 10^k} (ryu/src/pretty/mod.rs {@code format64}) as zmij, serde_json's
     * float printer since 1.0.149's dependency change, writes it: the same thresholds, {@code e+} before a positive
     * exponent.
     */
    private static String layout(boolean negative, String digits, int k) {
        int length = digits.length();
        int kk = length + k;
        StringBuilder out = new StringBuilder(24);
        if (negative) out.append('-');
        if (k >= 0 && kk <= 16) {
            out.append(digits);
            for (int i = 0; i < k; i++) out.append('0');
            out.append(".0");
        } else if (kk > 0 && kk <= 16) {
            out.append(digits, 0, kk).append('.').append(digits, kk, length);
        } else if (kk > -5 && kk <= 0) {
            out.append("0.");
            for (int i = 0; i < -kk; i++) out.append('0');
            out.append(digits);
        } else {
            out.append(digits.charAt(0));
            if (length > 1) out.append('.').append(digits, 1, length);
            // serde_json 1.0.149 prints floats with zmij, which signs a positive exponent (1e+16) where ryu did not.
            out.append(kk - 1 > 0 ? "e+" : "e").append(kk - 1);
        }
        return out.toString();
    }
}
