package planted.r4filesystem.adapters.s3.support;

public class StoreFailures {
    public static String classify(String key) {
        return "failed: " + key;
    }
}
