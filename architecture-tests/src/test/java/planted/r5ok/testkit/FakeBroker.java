package planted.r5ok.testkit;

public class FakeBroker {
}
