package planted.r6ok.domain.buffer;

public class Open implements planted.r6ok.domain.rotation.Progress {
    @Override
    public long bytes() {
        return 11;
    }

    public Sealed seal(planted.r6ok.domain.rotation.RotationReason reason) {
        return new Sealed(reason);
    }
}
