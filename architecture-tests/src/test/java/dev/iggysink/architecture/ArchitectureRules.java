package dev.iggysink.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.describe;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethodCall;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.CompositeArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.GeneralCodingRules;
import java.io.File;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.FileReader;
import java.io.FileWriter;
import java.io.RandomAccessFile;
import java.time.Clock;
import java.util.concurrent.TimeUnit;

/**
 * The architecture rules 1–11 (listed in docs/architecture.md) for a base package. Production code is checked with {@code dev.iggysink}; the
 * planted-violation tests check the very same rules against fixture trees under other bases, which is what proves
 * a rule can fail at all (a rule naming a package that does not exist would pass silently).
 */
final class ArchitectureRules {
    private final String base;

    ArchitectureRules(String base) {
        this.base = base;
    }

    private String pkg(String relative) {
        return base + "." + relative;
    }

    /** Rule 1. Annotations count: ArchUnit sees them as dependencies. */
    ArchRule domainDependsOnlyOnJava() {
        return classes().that().resideInAPackage(pkg("domain.."))
                .should().onlyDependOnClassesThat().resideInAnyPackage(pkg("domain.."), "java..")
                .because("the domain holds the sink's rules and must compile with the JDK alone (no Jackson, SDKs,"
                        + " logging frameworks or library annotations)");
    }

    /** Rule 2. */
    ArchRule applicationDependsOnlyOnDomainAndJava() {
        return classes().that().resideInAPackage(pkg("application.."))
                .should().onlyDependOnClassesThat()
                .resideInAnyPackage(pkg("application.."), pkg("domain.."), "java..")
                .because("the application orchestrates through ports; technology stays in adapters");
    }

    /**
     * Rule 3. Testkit (in-JVM broker, s3proxy) sits beside the adapters but only the demo may use it, so the sink's
     * jar ships no test infrastructure; the demo is the outermost ring and wires the sink through bootstrap.
     */
    ArchRule layers() {
        return layeredArchitecture().consideringOnlyDependenciesInLayers()
                .layer("Domain").definedBy(pkg("domain.."))
                .layer("Application").definedBy(pkg("application.."))
                .optionalLayer("Adapters").definedBy(pkg("adapters.."))
                .optionalLayer("Testkit").definedBy(pkg("testkit.."))
                .optionalLayer("Bootstrap").definedBy(pkg("bootstrap.."))
                .optionalLayer("Demo").definedBy(pkg("demo.."))
                .whereLayer("Demo").mayNotBeAccessedByAnyLayer()
                .whereLayer("Bootstrap").mayOnlyBeAccessedByLayers("Demo")
                .whereLayer("Testkit").mayOnlyBeAccessedByLayers("Demo")
                .whereLayer("Adapters").mayOnlyBeAccessedByLayers("Bootstrap", "Demo")
                .whereLayer("Application").mayOnlyBeAccessedByLayers("Adapters", "Bootstrap", "Demo")
                .whereLayer("Domain").mayOnlyBeAccessedByLayers("Application", "Adapters", "Bootstrap", "Demo")
                .because("dependencies point inwards: bootstrap wires adapters, adapters implement application"
                        + " ports, the application drives domain rules; test infrastructure reaches only the demo");
    }

    /** Rule 4. Empty until the adapters are filled, hence allowed to check nothing. */
    ArchRule adaptersDoNotDependOnEachOther() {
        return slices().matching(pkg("adapters.(*)..")).should().notDependOnEachOther()
                .allowEmptyShould(true)
                .because("each adapter translates one technology; sharing goes through application ports");
    }

    /** Rule 5. Bootstrap may wire any adapter but not testkit; the demo may use both. */
    ArchRule adaptersAreUsedOnlyByThemselvesAndBootstrap() {
        return classes().that().resideInAnyPackage(pkg("adapters.."), pkg("testkit.."))
                .should(beUsedOnlyFromTheirOwnAdapterOrBootstrap())
                .allowEmptyShould(true)
                .because("only bootstrap constructs and wires adapters, and the sink's jar ships no test"
                        + " infrastructure; nobody else may reach into one");
    }

    /**
     * Rule 9. Driving adapters (the admin server) reach a running sink through the inbound port only, so the pipeline
     * can change behind it and another front end can drive the same port.
     */
    ArchRule adminUsesTheInboundPortOnly() {
        return noClasses().that().resideInAPackage(pkg("bootstrap.admin.."))
                .should().dependOnClassesThat().resideInAPackage(pkg("application.service.."))
                .allowEmptyShould(true)
                .because("the admin server asks a sink through SinkControl (application.port.in), not its classes");
    }

    /**
     * Rule 10. The core knows what the pipeline needs (rotation, output, delivery, upload concurrency, memory, error
     * policy), never how a source or a store is reached: no field of an application type (record components included)
     * is named after a connection, credential or store option, or holds a credential. That is what lets another store
     * or source plug in without editing the core.
     */
    ArchRule applicationCarriesNoTechnologyOption() {
        return classes().that().resideInAPackage(pkg("application.."))
                .should(carryNoTechnologyOption())
                .because("storage and source options belong to their adapters; bootstrap hands them over, the"
                        + " pipeline never sees them");
    }

    /**
     * Rule 11. A port package declares contracts, not machinery: interfaces, records, enums and exceptions (their
     * nested types too). A concrete class there (as the file-bytes class once was) is logic every
     * adapter inherits without it being a port; it belongs in an application package of its own.
     */
    ArchRule portsHoldOnlyContracts() {
        return classes().that().resideInAPackage(pkg("application.port.."))
                .should(beAContract())
                .allowEmptyShould(true)
                .because("ports are what the core asks of the outside and what the outside may ask of it;"
                        + " implementations live in application packages or adapters");
    }

    private static ArchCondition<JavaClass> beAContract() {
        return new ArchCondition<>("be an interface, a record, an enum or an exception (or a port's anonymous null"
                + " object)") {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                // An anonymous class is a port's own null object (a no-op constant); no one can name or extend it.
                boolean contract = c.isInterface() || c.isRecord() || c.isEnum() || c.isAssignableTo(Throwable.class)
                        || c.isAnonymousClass();
                if (!contract) {
                    events.add(SimpleConditionEvent.violated(c, c.getName() + " is a class in a port package"));
                }
            }
        };
    }

    /** Rule 6. No exceptions: a package that needs a type of another declares what it needs, as rotation does. */
    ArchRule noPackageCycles() {
        return slices().matching(pkg("(*).(*)..")).should().beFreeOfCycles()
                .because("cycles make packages impossible to understand, test or move on their own");
    }

    /** Rule 7. */
    ArchRule noWallClockSleepFileOrNetworkInTheCore() {
        return noClasses().that().resideInAnyPackage(pkg("domain.."), pkg("application.."))
                .should().callMethodWhere(readsTheWallClockOrSleeps())
                .orShould().dependOnClassesThat().resideInAnyPackage("java.net..", "java.nio.file..")
                .orShould().dependOnClassesThat().belongToAnyOf(File.class, FileInputStream.class,
                        FileOutputStream.class, FileReader.class, FileWriter.class, RandomAccessFile.class)
                .because("time, waiting and I/O are ports (Clock, Sleeper, ObjectStore) so the rules are tested"
                        + " deterministically and without waiting");
    }

    /** Rule 8. */
    static ArchRule generalCodingRules() {
        return CompositeArchRule.of(GeneralCodingRules.NO_CLASSES_SHOULD_ACCESS_STANDARD_STREAMS)
                .and(GeneralCodingRules.NO_CLASSES_SHOULD_THROW_GENERIC_EXCEPTIONS)
                // a rule over fields: a set of classes without any field has nothing to check, and that is fine
                .and(GeneralCodingRules.NO_CLASSES_SHOULD_USE_FIELD_INJECTION.allowEmptyShould(true))
                .because("output goes through logging or the CLI's writers, failures carry a type that says"
                        + " whether they are retryable, and wiring is by constructor in bootstrap");
    }

    private ArchCondition<JavaClass> beUsedOnlyFromTheirOwnAdapterOrBootstrap() {
        return new ArchCondition<>("be used only from their own adapter, bootstrap (not testkit) or the demo") {
            @Override
            public void check(JavaClass target, ConditionEvents events) {
                String own = adapterOf(target.getPackageName());
                boolean testkit = own.equals(pkg("testkit"));
                for (Dependency d : target.getDirectDependenciesToSelf()) {
                    String origin = d.getOriginClass().getPackageName();
                    boolean allowed = own.equals(adapterOf(origin)) || within(origin, "demo")
                            || (!testkit && within(origin, "bootstrap"));
                    if (!allowed) events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                }
            }
        };
    }

    /** Words of a field name that say "how to reach a store or a source". */
    private static final java.util.Set<String> TECHNOLOGY_WORDS = java.util.Set.of("bucket", "region", "endpoint",
            "acl", "sse", "kms", "multipart", "storage", "host", "port", "username", "password", "credential",
            "credentials", "tls", "token", "address", "url", "uri", "directory", "iggy", "s3", "aws", "minio");

    private static ArchCondition<JavaClass> carryNoTechnologyOption() {
        return new ArchCondition<>("carry no storage- or source-specific option") {
            @Override
            public void check(JavaClass target, ConditionEvents events) {
                for (com.tngtech.archunit.core.domain.JavaField field : target.getFields()) {
                    java.util.Optional<String> word = java.util.Arrays.stream(
                                    field.getName().split("(?<=[a-z0-9])(?=[A-Z])|[^A-Za-z0-9]+"))
                            .map(w -> w.toLowerCase(java.util.Locale.ROOT))
                            .filter(TECHNOLOGY_WORDS::contains).findFirst();
                    if (word.isPresent()) {
                        events.add(SimpleConditionEvent.violated(field, field.getFullName() + " is named after a"
                                + " storage or source option (\"" + word.get() + "\")"));
                    } else if (field.getRawType().getSimpleName().equals("Secret")) {
                        events.add(SimpleConditionEvent.violated(field, field.getFullName()
                                + " holds a credential: the pipeline needs none"));
                    }
                }
            }
        };
    }

    private boolean within(String packageName, String relative) {
        return packageName.equals(pkg(relative)) || packageName.startsWith(pkg(relative) + ".");
    }

    /** {@code <base>.adapters.<name>} or {@code <base>.testkit} for a package inside one, else the package. */
    private String adapterOf(String packageName) {
        String adapters = pkg("adapters.");
        if (packageName.startsWith(adapters)) {
            int end = packageName.indexOf('.', adapters.length());
            return end < 0 ? packageName : packageName.substring(0, end);
        }
        String testkit = pkg("testkit");
        if (packageName.equals(testkit) || packageName.startsWith(testkit + ".")) return testkit;
        return packageName;
    }

    private static DescribedPredicate<JavaMethodCall> readsTheWallClockOrSleeps() {
        return describe("reads the wall clock or sleeps", call -> {
            JavaClass owner = call.getTargetOwner();
            String name = call.getName();
            if (owner.getPackageName().equals("java.time")) {
                // now(Clock) reads an injected clock and is fine; now() and now(ZoneId) read the system's.
                boolean fromInjectedClock = call.getTarget().getRawParameterTypes().stream()
                        .anyMatch(p -> p.isEquivalentTo(Clock.class));
                return (name.equals("now") && !fromInjectedClock)
                        || (name.startsWith("system") && (owner.isEquivalentTo(Clock.class)
                        || owner.getSimpleName().equals("InstantSource")));
            }
            return (owner.isEquivalentTo(System.class) && (name.equals("currentTimeMillis")
                    || name.equals("nanoTime")))
                    || (owner.isEquivalentTo(Thread.class) && name.equals("sleep"))
                    || (owner.isEquivalentTo(TimeUnit.class) && name.equals("sleep"));
        });
    }
}
