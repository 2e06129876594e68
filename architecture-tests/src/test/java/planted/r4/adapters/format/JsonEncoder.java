package planted.r4.adapters.format;

public class JsonEncoder {
    public String name() {
        return "json";
    }
}
