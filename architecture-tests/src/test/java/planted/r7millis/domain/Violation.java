package planted.r7millis.domain;

public class Violation {
    public long act() {
        return System.currentTimeMillis();
    }
}
