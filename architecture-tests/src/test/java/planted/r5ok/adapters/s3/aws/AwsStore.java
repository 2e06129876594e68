package planted.r5ok.adapters.s3.aws;

public class AwsStore {
    public Object request() {
        return new planted.r5ok.adapters.s3.RequestHelper();
    }
}
