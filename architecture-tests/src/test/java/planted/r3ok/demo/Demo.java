package planted.r3ok.demo;

/** The outermost ring: starts bootstrap's sink and may touch any inner layer. */
public class Demo {
    public int start() {
        return new planted.r3ok.bootstrap.Main().start() + new planted.r3ok.adapters.iggy.IggySource().poll();
    }
}
