package planted.r2.adapters.s3;

public class S3Store {
}
