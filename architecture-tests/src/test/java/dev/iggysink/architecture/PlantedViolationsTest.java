package dev.iggysink.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.EvaluationResult;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Proves every rule can fail: each is evaluated against a fixture tree with one planted violation, and against a
 * clean tree where one exists, so a rule that is too strict shows up as well as one that checks nothing.
 */
class PlantedViolationsTest {

    private static EvaluationResult evaluate(String base, Function<ArchitectureRules, ArchRule> rule) {
        JavaClasses classes = new ClassFileImporter().importPackages(base);
        assertThat(classes).as("fixtures of %s", base).isNotEmpty();
        return rule.apply(new ArchitectureRules(base)).evaluate(classes);
    }

    private static void assertViolation(String base, Function<ArchitectureRules, ArchRule> rule, String mentioned) {
        EvaluationResult result = evaluate(base, rule);
        assertThat(result.hasViolation()).as("rule must fail on %s", base).isTrue();
        assertThat(result.getFailureReport().getDetails()).anySatisfy(d -> assertThat(d).contains(mentioned));
    }

    private static void assertClean(String base, Function<ArchitectureRules, ArchRule> rule) {
        EvaluationResult result = evaluate(base, rule);
        assertThat(result.getFailureReport().getDetails()).as("rule must pass on %s", base).isEmpty();
    }

    @Test
    void rule1_fails_when_the_domain_uses_a_library_class_or_annotation() {
        assertViolation("planted.r1lib", ArchitectureRules::domainDependsOnlyOnJava, "com.tngtech.archunit");
        assertViolation("planted.r1annotation", ArchitectureRules::domainDependsOnlyOnJava, "org.junit.jupiter.api.Tag");
        assertClean("planted.r1ok", ArchitectureRules::domainDependsOnlyOnJava);
    }

    @Test
    void rule2_fails_when_the_application_uses_an_adapter() {
        assertViolation("planted.r2", ArchitectureRules::applicationDependsOnlyOnDomainAndJava, "S3Store");
        assertClean("planted.r2ok", ArchitectureRules::applicationDependsOnlyOnDomainAndJava);
    }

    @Test
    void rule3_fails_when_a_dependency_points_outwards() {
        assertViolation("planted.r3adapterToBootstrap", ArchitectureRules::layers, "bootstrap.Main");
        assertViolation("planted.r3domainToApplication", ArchitectureRules::layers, "application.Service");
        assertViolation("planted.r5testkitInBootstrap", ArchitectureRules::layers, "testkit.FakeBroker");
        assertClean("planted.r3ok", ArchitectureRules::layers);
    }

    @Test
    void rule4_fails_when_an_adapter_uses_another() {
        assertViolation("planted.r4", ArchitectureRules::adaptersDoNotDependOnEachOther, "JsonEncoder");
        assertViolation("planted.r4filesystem", ArchitectureRules::adaptersDoNotDependOnEachOther, "StoreFailures");
        assertClean("planted.r5ok", ArchitectureRules::adaptersDoNotDependOnEachOther);
    }

    @Test
    void rule5_fails_when_an_adapter_is_used_from_outside_it_and_bootstrap() {
        assertViolation("planted.r5", ArchitectureRules::adaptersAreUsedOnlyByThemselvesAndBootstrap, "FakeBroker");
        assertViolation("planted.r2", ArchitectureRules::adaptersAreUsedOnlyByThemselvesAndBootstrap, "S3Store");
        assertViolation("planted.r4", ArchitectureRules::adaptersAreUsedOnlyByThemselvesAndBootstrap, "JsonEncoder");
        assertViolation("planted.r4filesystem", ArchitectureRules::adaptersAreUsedOnlyByThemselvesAndBootstrap,
                "StoreFailures");
        assertViolation("planted.r5testkitInBootstrap", ArchitectureRules::adaptersAreUsedOnlyByThemselvesAndBootstrap,
                "FakeBroker");
        assertClean("planted.r5ok", ArchitectureRules::adaptersAreUsedOnlyByThemselvesAndBootstrap);
    }

    @Test
    void rule6_fails_on_a_package_cycle_even_the_rotation_reason_one_it_once_exempted() {
        assertViolation("planted.r6", ArchitectureRules::noPackageCycles, "Names");
        assertViolation("planted.r6reason", ArchitectureRules::noPackageCycles, "RotationReason");
        assertClean("planted.r6ok", ArchitectureRules::noPackageCycles);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"planted.r7instant", "planted.r7localdatetime", "planted.r7millis", "planted.r7nanos",
            "planted.r7systemclock", "planted.r7sleep", "planted.r7timeunitsleep", "planted.r7path", "planted.r7file",
            "planted.r7network"})
    void rule7_fails_on_wall_clock_sleep_file_or_network(String base) {
        assertViolation(base, ArchitectureRules::noWallClockSleepFileOrNetworkInTheCore, "Violation");
    }

    @Test
    void rule7_accepts_an_injected_clock() {
        assertClean("planted.r7ok", ArchitectureRules::noWallClockSleepFileOrNetworkInTheCore);
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"planted.r8out", "planted.r8generic", "planted.r8injection"})
    void rule8_fails_on_standard_streams_generic_exceptions_and_field_injection(String base) {
        assertViolation(base, r -> ArchitectureRules.generalCodingRules(), base);
    }

    @Test
    void rule8_accepts_constructor_wiring_and_specific_exceptions() {
        assertClean("planted.r8ok", r -> ArchitectureRules.generalCodingRules());
    }

    @Test
    void rule9_fails_when_the_admin_server_uses_the_pipeline_instead_of_the_inbound_port() {
        assertViolation("planted.r9", ArchitectureRules::adminUsesTheInboundPortOnly, "planted.r9.bootstrap.admin");
        assertClean("planted.r9ok", ArchitectureRules::adminUsesTheInboundPortOnly);
    }

    @Test
    void rule10_fails_when_the_application_carries_a_store_option_or_a_credential() {
        assertViolation("planted.r10", ArchitectureRules::applicationCarriesNoTechnologyOption, "StoreSettings.bucket");
        assertViolation("planted.r10secret", ArchitectureRules::applicationCarriesNoTechnologyOption,
                "SourceSettings.password");
        assertViolation("planted.r10secret", ArchitectureRules::applicationCarriesNoTechnologyOption,
                "SourceSettings.login");
        assertClean("planted.r10ok", ArchitectureRules::applicationCarriesNoTechnologyOption);
    }

    @Test
    void rule11_fails_when_a_port_package_holds_a_concrete_class() {
        assertViolation("planted.r11", ArchitectureRules::portsHoldOnlyContracts,
                "planted.r11.application.port.out.Bytes");
        assertClean("planted.r11ok", ArchitectureRules::portsHoldOnlyContracts);
    }
}
