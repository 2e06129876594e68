package planted.r6ok.domain.rotation;

public class Policy {
    public RotationReason decide(Progress file) {
        return file.bytes() > 10 ? RotationReason.SIZE : null;
    }
}
