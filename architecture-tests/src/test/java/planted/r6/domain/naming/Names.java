package planted.r6.domain.naming;

public class Names {
    public static String of(planted.r6.domain.buffer.Buffer buffer) {
        return String.valueOf(buffer.hashCode());
    }
}
