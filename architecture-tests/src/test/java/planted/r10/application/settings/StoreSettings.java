package planted.r10.application.settings;

/** The pre-move shape: a bucket in the core's settings. */
public record StoreSettings(String bucket, int uploadConcurrency) {
}
