package planted.r7network.domain;

public class Violation {
    public Object act() {
        return java.net.URI.create("http://example.invalid");
    }
}
