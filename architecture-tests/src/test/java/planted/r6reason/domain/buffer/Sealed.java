package planted.r6reason.domain.buffer;

public record Sealed(planted.r6reason.domain.rotation.RotationReason reason) {
}
