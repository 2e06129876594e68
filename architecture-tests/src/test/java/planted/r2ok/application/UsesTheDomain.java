package planted.r2ok.application;

public class UsesTheDomain {
    public planted.r2ok.domain.Rule rule() {
        return new planted.r2ok.domain.Rule();
    }
}
