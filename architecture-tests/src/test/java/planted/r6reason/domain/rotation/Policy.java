package planted.r6reason.domain.rotation;

/** The shape the rule once exempted: the policy reads the buffer's file, the buffer records the policy's reason. */
public class Policy {
    public RotationReason decide(planted.r6reason.domain.buffer.Open file) {
        return file.bytes() > 10 ? RotationReason.SIZE : null;
    }
}
