package planted.r3adapterToBootstrap.domain;

public class Rule {
    public int limit() {
        return 1;
    }
}
