package planted.r6ok.domain.rotation;

public interface Progress {
    long bytes();
}
