package planted.r3domainToApplication.application;

public class Service {
    public int run() {
        return new planted.r3domainToApplication.domain.Rule().limit();
    }
}
