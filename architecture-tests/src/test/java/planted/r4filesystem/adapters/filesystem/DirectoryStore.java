package planted.r4filesystem.adapters.filesystem;

/** The tempting shortcut: the directory store reusing the S3 adapters' failure helper. */
public class DirectoryStore {
    public String fail(String key) {
        return planted.r4filesystem.adapters.s3.support.StoreFailures.classify(key);
    }
}
