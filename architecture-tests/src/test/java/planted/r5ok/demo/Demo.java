package planted.r5ok.demo;

/** The demo may use testkit, an adapter and bootstrap. */
public class Demo {
    public Object[] start() {
        return new Object[] {new planted.r5ok.testkit.FakeBroker(), new planted.r5ok.adapters.s3.aws.AwsStore(),
                new planted.r5ok.bootstrap.Assembly().wire()};
    }
}
