package planted.r5.testkit;

public class FakeBroker {
}
