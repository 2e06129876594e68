package planted.r7systemclock.application;

public class Violation {
    public java.time.Clock act() {
        return java.time.Clock.systemUTC();
    }
}
