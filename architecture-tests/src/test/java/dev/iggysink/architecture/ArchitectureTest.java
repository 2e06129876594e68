package dev.iggysink.architecture;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ImportOption.DoNotIncludeTests;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The rules over the production classes of every module (test classes, and so the planted fixtures, excluded). */
@AnalyzeClasses(packages = "dev.iggysink", importOptions = DoNotIncludeTests.class)
class ArchitectureTest {
    private static final ArchitectureRules RULES = new ArchitectureRules("dev.iggysink");

    @ArchTest
    static final ArchRule rule1_domain_depends_only_on_java = RULES.domainDependsOnlyOnJava();

    @ArchTest
    static final ArchRule rule2_application_depends_only_on_domain_and_java =
            RULES.applicationDependsOnlyOnDomainAndJava();

    @ArchTest
    static final ArchRule rule3_layers = RULES.layers();

    @ArchTest
    static final ArchRule rule4_adapters_do_not_depend_on_each_other = RULES.adaptersDoNotDependOnEachOther();

    @ArchTest
    static final ArchRule rule5_adapters_used_only_by_themselves_and_bootstrap =
            RULES.adaptersAreUsedOnlyByThemselvesAndBootstrap();

    @ArchTest
    static final ArchRule rule6_no_package_cycles = RULES.noPackageCycles();

    @ArchTest
    static final ArchRule rule7_no_wall_clock_sleep_file_or_network_in_the_core =
            RULES.noWallClockSleepFileOrNetworkInTheCore();

    @ArchTest
    static final ArchRule rule8_general_coding_rules = ArchitectureRules.generalCodingRules();

    @ArchTest
    static final ArchRule rule9_admin_uses_the_inbound_port_only = RULES.adminUsesTheInboundPortOnly();

    @ArchTest
    static final ArchRule rule10_application_carries_no_technology_option =
            RULES.applicationCarriesNoTechnologyOption();

    @ArchTest
    static final ArchRule rule11_ports_hold_only_contracts = RULES.portsHoldOnlyContracts();

    /**
     * The rules name no adapter: they hold for whatever is on this module's classpath. An adapter module missing from
     * its dependencies would pass every rule unchecked, so each one is required here.
     */
    @ArchTest
    static void every_adapter_module_is_analysed(JavaClasses classes) {
        assertThat(classes.stream().map(JavaClass::getPackageName))
                .anyMatch(p -> p.startsWith("dev.iggysink.adapters.iggy"))
                .anyMatch(p -> p.startsWith("dev.iggysink.adapters.s3"))
                .anyMatch(p -> p.startsWith("dev.iggysink.adapters.filesystem"))
                .anyMatch(p -> p.startsWith("dev.iggysink.adapters.format"))
                .anyMatch(p -> p.startsWith("dev.iggysink.adapters.iceberg"))
                .anyMatch(p -> p.startsWith("dev.iggysink.adapters.config"));
    }
}
