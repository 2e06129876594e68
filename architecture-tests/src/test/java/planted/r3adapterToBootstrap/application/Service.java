package planted.r3adapterToBootstrap.application;

public class Service {
    public int run() {
        return new planted.r3adapterToBootstrap.domain.Rule().limit();
    }
}
