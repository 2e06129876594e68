package planted.r3ok.adapters.iggy;

public class IggySource {
    public int poll() {
        return new planted.r3ok.application.Service().run();
    }
}
