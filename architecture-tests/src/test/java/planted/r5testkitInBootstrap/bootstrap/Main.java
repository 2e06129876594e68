package planted.r5testkitInBootstrap.bootstrap;

/** The sink's own code using test infrastructure: it would end up in the production jar. */
public class Main {
    public Object broker() {
        return new planted.r5testkitInBootstrap.testkit.FakeBroker();
    }
}
