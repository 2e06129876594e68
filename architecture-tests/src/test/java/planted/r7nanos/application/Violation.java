package planted.r7nanos.application;

public class Violation {
    public long act() {
        return System.nanoTime();
    }
}
