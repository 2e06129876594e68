package planted.r3domainToApplication.bootstrap;

public class Main {
    public static final int VERSION = Integer.getInteger("v", 1);

    public int start() {
        return new planted.r3domainToApplication.adapters.iggy.IggySource().poll();
    }
}
