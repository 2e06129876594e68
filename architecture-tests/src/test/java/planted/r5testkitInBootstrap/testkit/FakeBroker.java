package planted.r5testkitInBootstrap.testkit;

public class FakeBroker {
}
