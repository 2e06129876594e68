package planted.r11.application.port.out;

/** A concrete class with logic in a port package, as the file-bytes class once was. */
public final class Bytes {
    private final byte[] data;

    public Bytes(byte[] data) {
        this.data = data.clone();
    }

    public int length() {
        return data.length;
    }
}
