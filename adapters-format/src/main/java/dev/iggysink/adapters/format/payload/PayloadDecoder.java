package dev.iggysink.adapters.format.payload;

/** Payload bytes to a {@link Payload} for one {@code schema}. Implementations are stateless and thread-safe. */
@FunctionalInterface
public interface PayloadDecoder {
    /** @throws DecodeFailure the bytes are not a payload of this schema; the message says why */
    Payload decode(byte[] bytes) throws DecodeFailure;

    /** Why a payload did not decode; the codec adds offset and partition. */
    final class DecodeFailure extends Exception {
        private static final long serialVersionUID = 1L;
        DecodeFailure(String message, Throwable cause) {
            super(message, cause, false, false);
        }
    }
}
