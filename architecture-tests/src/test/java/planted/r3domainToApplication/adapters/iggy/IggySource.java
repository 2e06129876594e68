package planted.r3domainToApplication.adapters.iggy;

public class IggySource {
    public int poll() {
        return new planted.r3domainToApplication.application.Service().run();
    }
}
