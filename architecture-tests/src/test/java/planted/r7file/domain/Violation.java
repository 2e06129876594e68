package planted.r7file.domain;

public class Violation {
    public Object act() {
        return new java.io.File("x");
    }
}
