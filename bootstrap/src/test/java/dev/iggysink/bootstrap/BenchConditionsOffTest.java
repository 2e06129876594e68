package dev.iggysink.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.adapters.filesystem.DirectoryObjectStore;
import dev.iggysink.application.port.out.ObjectStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bench's switch: the same store, except that a create overwrites as on a store ignoring the condition. */
class BenchConditionsOffTest {
    @TempDir
    Path dir;

    @Test
    void createsOverwriteAndEverythingElsePassesThrough() throws Exception {
        ObjectStore plain = new DirectoryObjectStore(dir);
        assertThat(plain.create("a/one", bytes("first"), Map.of())).isTrue();
        assertThat(plain.create("a/one", bytes("second"), Map.of())).isFalse();

        ObjectStore ignoring = BenchConditionsOff.ignoringConditions(plain);
        assertThat(ignoring.create("a/one", bytes("third"), Map.of())).isTrue();
        assertThat(new String(ignoring.get("a/one"), StandardCharsets.UTF_8)).isEqualTo("third");
        assertThat(ignoring.create("a/two", bytes("x"), Map.of())).isTrue();
        assertThat(ignoring.create("a/two", bytes("y"), Map.of())).isTrue();
        assertThat(ignoring.list("a/")).extracting(o -> o.key()).containsExactly("a/one", "a/two");
        ignoring.delete("a/two");
        assertThat(plain.list("a/")).extracting(o -> o.key()).containsExactly("a/one");
    }

    @Test
    void withoutThePropertyTheStoreIsUntouched() {
        ObjectStore plain = new DirectoryObjectStore(dir);
        assertThat(System.getProperty(BenchConditionsOff.PROPERTY)).isNull();
        assertThat(BenchConditionsOff.apply(plain)).isSameAs(plain);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
