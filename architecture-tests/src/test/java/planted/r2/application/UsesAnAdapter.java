package planted.r2.application;

public class UsesAnAdapter {
    public Object store() {
        return new planted.r2.adapters.s3.S3Store();
    }
}
