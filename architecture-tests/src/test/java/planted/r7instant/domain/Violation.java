package planted.r7instant.domain;

public class Violation {
    public java.time.Instant act() {
        return java.time.Instant.now();
    }
}
