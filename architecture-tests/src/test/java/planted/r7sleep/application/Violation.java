package planted.r7sleep.application;

public class Violation {
    public int act() {
        try { Thread.sleep(1); } catch (InterruptedException e) { Thread.currentThread().interrupt(); } return 1;
    }
}
