package dev.iggysink.domain.message;

/** Iggy user-header kinds with their wire codes. */
public enum HeaderKind {
    RAW(1), STRING(2), BOOL(3), INT8(4), INT16(5), INT32(6), INT64(7), INT128(8),
    UINT8(9), UINT16(10), UINT32(11), UINT64(12), UINT128(13), FLOAT32(14), FLOAT64(15);

    private final int code;

    HeaderKind(int code) {
        this.code = code;
    }

    public int code() {
        return code;
    }

    public static HeaderKind ofCode(int code) {
        for (HeaderKind k : values()) {
            if (k.code == code) return k;
        }
        throw new IllegalArgumentException("unknown header kind " + code);
    }
}
