package planted.r6.domain.buffer;

public class Buffer {
    public String key() {
        return planted.r6.domain.naming.Names.of(this);
    }
}
