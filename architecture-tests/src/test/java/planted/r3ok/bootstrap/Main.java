package planted.r3ok.bootstrap;

public class Main {
    public static final int VERSION = Integer.getInteger("v", 1);

    public int start() {
        return new planted.r3ok.adapters.iggy.IggySource().poll();
    }
}
