package dev.iggysink.application.settings;

/** {@code compression} of json and raw files; the suffix goes after the format extension. */
public enum Compression {
    NONE(""), GZIP(".gz"), ZSTD(".zst");

    private final String suffix;

    Compression(String suffix) {
        this.suffix = suffix;
    }

    public String suffix() {
        return suffix;
    }
}
