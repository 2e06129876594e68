package planted.r7timeunitsleep.domain;

public class Violation {
    public int act() {
        try { java.util.concurrent.TimeUnit.SECONDS.sleep(1); } catch (InterruptedException e) { Thread.currentThread().interrupt(); } return 1;
    }
}
