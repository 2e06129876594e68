package planted.r5ok.bootstrap;

public class Assembly {
    public Object[] wire() {
        return new Object[] {new planted.r5ok.adapters.s3.aws.AwsStore()};
    }
}
