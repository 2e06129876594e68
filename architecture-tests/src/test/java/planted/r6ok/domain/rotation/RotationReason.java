package planted.r6ok.domain.rotation;

public enum RotationReason { SIZE }
