package planted.r10secret.application.settings;

public final class Secret {
    private final String value;

    public Secret(String value) {
        this.value = value;
    }

    public int length() {
        return value.length();
    }
}
