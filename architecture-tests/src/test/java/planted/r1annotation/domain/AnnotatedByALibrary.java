package planted.r1annotation.domain;

@org.junit.jupiter.api.Tag("library-annotation")
public class AnnotatedByALibrary {
}
