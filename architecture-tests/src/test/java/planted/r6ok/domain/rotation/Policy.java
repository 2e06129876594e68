package planted.r6ok.domain.rotation;

public class Policy {
    public boolean seal(planted.r6ok.domain.buffer.Sealed file) {
        return file.reason() == RotationReason.SIZE;
    }
}
