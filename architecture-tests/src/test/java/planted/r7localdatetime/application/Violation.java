package planted.r7localdatetime.application;

public class Violation {
    public java.time.LocalDateTime act() {
        return java.time.LocalDateTime.now(java.time.ZoneOffset.UTC);
    }
}
