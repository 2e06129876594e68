package planted.r3ok.application;

public class Service {
    public int run() {
        return new planted.r3ok.domain.Rule().limit();
    }
}
