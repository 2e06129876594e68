package planted.r8generic;

public class Thrower {
    public void fail() {
        throw new RuntimeException("generic");
    }
}
