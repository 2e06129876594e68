package planted.r11ok.application.file;

/** The same class, outside the port package. */
public final class Bytes {
    private final byte[] data;

    public Bytes(byte[] data) {
        this.data = data.clone();
    }

    public int length() {
        return data.length;
    }
}
