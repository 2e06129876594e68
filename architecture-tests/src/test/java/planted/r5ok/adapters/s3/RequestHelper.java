package planted.r5ok.adapters.s3;

public class RequestHelper {
}
