package dev.iggysink.adapters.format.json;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class DoubleFormatTest {

    /**
     * Expected texts are what serde_json 1.0.149 prints for the same double (its float printer is zmij: ryu's layout,
     * with a {@code +} on positive exponents); SerdeJsonParityIT checks them against the real crate.
     */
    @ParameterizedTest
    @CsvSource({
            "1.0, 1.0", "-1.5, -1.5", "0.0, 0.0", "-0.0, -0.0", "100, 100.0", "0.1, 0.1", "0.3, 0.3",
            "1e15, 1000000000000000.0", "1e16, 1e+16", "1.5e16, 1.5e+16", "123456.789, 123456.789",
            "0.0001, 0.0001", "0.00001, 0.00001", "0.000001, 1e-6", "1.2e-7, 1.2e-7",
            "5e-324, 5e-324", "1.7976931348623157e308, 1.7976931348623157e+308",
            "2e-3, 0.002", "1.0E23, 1e+23", "9007199254740993, 9007199254740992.0"})
    void prints_the_shortest_digits_in_ryu_layout(double value, String expected) {
        assertThat(DoubleFormat.ryu(value)).isEqualTo(expected);
    }

    @ParameterizedTest
    @CsvSource({"0.1, 0.1", "3.4028235e38, 3.4028235e+38", "1.0e-45, 1e-45", "16777216, 16777216.0"})
    void a_float32_reads_as_the_f64_of_its_shortest_digits(float value, String expected) {
        assertThat(DoubleFormat.ryu(DoubleFormat.f32AsRustF64(value))).isEqualTo(expected);
    }
}
