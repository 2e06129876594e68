package planted.r3ok.domain;

public class Rule {
    public int limit() {
        return 1;
    }
}
