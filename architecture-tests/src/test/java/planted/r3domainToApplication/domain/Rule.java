package planted.r3domainToApplication.domain;

public class Rule {
    public int limit() {
        return new planted.r3domainToApplication.application.Service().hashCode() + 1;
    }
}
