package planted.r5.adapters.iggy;

public class IggySource {
    public Object broker() {
        return new planted.r5.testkit.FakeBroker();
    }
}
