package dev.iggysink.domain.message;

import java.math.BigInteger;

/** Iggy's u128 message id, as two unsigned 64-bit halves. */
public record MessageId(long high, long low) {
    public static final MessageId ZERO = new MessageId(0, 0);

    public BigInteger toBigInteger() {
        BigInteger hi = new BigInteger(Long.toUnsignedString(high));
        BigInteger lo = new BigInteger(Long.toUnsignedString(low));
        return hi.shiftLeft(64).or(lo);
    }

    @Override
    public String toString() {
        return toBigInteger().toString();
    }
}
