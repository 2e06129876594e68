package planted.r7path.application;

public class Violation {
    public Object act() {
        return java.nio.file.Path.of("x");
    }
}
