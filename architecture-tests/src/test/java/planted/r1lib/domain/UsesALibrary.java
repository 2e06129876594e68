package planted.r1lib.domain;

public class UsesALibrary {
    public String describe() {
        return com.tngtech.archunit.core.domain.JavaModifier.PUBLIC.name();
    }
}
