package planted.r8injection;

public class Injected {
    @javax.inject.Inject
    Object dependency;

    public Object dependency() {
        return dependency;
    }
}
