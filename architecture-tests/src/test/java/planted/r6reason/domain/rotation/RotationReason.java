package planted.r6reason.domain.rotation;

public enum RotationReason { SIZE }
