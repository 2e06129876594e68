package planted.r3adapterToBootstrap.bootstrap;

public class Main {
    public static final int VERSION = Integer.getInteger("v", 1);

    public int start() {
        return new planted.r3adapterToBootstrap.adapters.iggy.IggySource().poll();
    }
}
