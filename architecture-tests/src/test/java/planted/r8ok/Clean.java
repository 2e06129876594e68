package planted.r8ok;

public class Clean {
    private final Object dependency;

    public Clean(Object dependency) {
        this.dependency = dependency;
    }

    public Object dependency() {
        if (dependency == null) throw new IllegalStateException("no dependency");
        return dependency;
    }
}
