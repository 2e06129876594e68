package planted.r6ok.domain.buffer;

public record Sealed(planted.r6ok.domain.rotation.RotationReason reason) {
}
