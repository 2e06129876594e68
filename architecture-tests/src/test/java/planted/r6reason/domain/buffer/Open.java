package planted.r6reason.domain.buffer;

public class Open {
    public long bytes() {
        return 11;
    }

    public Sealed seal(planted.r6reason.domain.rotation.RotationReason reason) {
        return new Sealed(reason);
    }
}
