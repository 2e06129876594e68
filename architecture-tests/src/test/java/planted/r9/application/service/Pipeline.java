package planted.r9.application.service;

public final class Pipeline {
    public void flush() {
    }
}
