package dev.iggysink.bootstrap;

import dev.iggysink.application.file.FileBytes;
import dev.iggysink.application.port.out.ObjectStore;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.Map;

/**
 * For the bench only, never for users (no connector key, no docs outside docs/performance.md): with the system
 * property {@value #PROPERTY} set to {@code true}, the sink's store acts as one that ignores conditional writes, so
 * its start-up probe turns claims off and the same build runs without them. That is how {@code bench.sh --only
 * claims} sets what claims cost against the same code without them. A proxy, not a class implementing the port, so
 * that the port can grow without this having to.
 */
final class BenchConditionsOff {
    static final String PROPERTY = "iggysink.bench.ignoreConditionalWrites";

    private BenchConditionsOff() {
    }

    /** {@code store} itself, or with the property set, the same store whose creates overwrite. */
    static ObjectStore apply(ObjectStore store) {
        return Boolean.getBoolean(PROPERTY) ? ignoringConditions(store) : store;
    }

    static ObjectStore ignoringConditions(ObjectStore store) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (isCreate(method)) {
                @SuppressWarnings("unchecked")
                Map<String, String> metadata = (Map<String, String>) args[2];
                store.put((String) args[0], FileBytes.of((byte[]) args[1]), "application/octet-stream", metadata);
                return true;
            }
            if (method.getDeclaringClass() == Object.class && method.getName().equals("toString")) {
                return store.toString();
            }
            try {
                return method.invoke(store, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (ObjectStore) Proxy.newProxyInstance(ObjectStore.class.getClassLoader(),
                new Class<?>[] {ObjectStore.class}, handler);
    }

    private static boolean isCreate(Method method) {
        Class<?>[] p = method.getParameterTypes();
        return method.getName().equals("create") && p.length == 3 && p[0] == String.class && p[1] == byte[].class;
    }
}
