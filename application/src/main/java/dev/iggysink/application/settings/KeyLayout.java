package dev.iggysink.application.settings;

/** How an object's key names the offsets of its file. */
public enum KeyLayout {
    /**
     * {@code PPPPP-first-last.ext}: the seed's and the Rust sink's keys, byte for byte (the default). Cuts are settled
     * by claims (docs/adr/0013-claims-decide-the-cut.md).
     */
    OFFSETS("offsets"),
    /**
     * {@code PPPPP-first.ext}: the key names only the first offset, and the file is written with one conditional
     * write that is also its claim (docs/adr/0019-one-conditional-write-per-file.md).
     */
    FIRST_OFFSET("first_offset");

    private final String configName;

    KeyLayout(String configName) {
        this.configName = configName;
    }

    /** The value of {@code key_layout} that selects it. */
    public String configName() {
        return configName;
    }
}
