package planted.r3adapterToBootstrap.adapters.iggy;

public class IggySource {
    public int poll() {
        return new planted.r3adapterToBootstrap.application.Service().run() + planted.r3adapterToBootstrap.bootstrap.Main.VERSION;
    }
}
