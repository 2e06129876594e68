package planted.r4.adapters.s3;

public class S3Store {
    public String encode() {
        return new planted.r4.adapters.format.JsonEncoder().name();
    }
}
