package dev.iggysink.application.deadletter;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads one flat JSON object (string, number, boolean and null values), as dead letters are written: the application
 * layer has no JSON library, and a dead letter needs no more. A nested value (a dead letter's {@code headers}, an
 * array of flat objects) is kept as its JSON text, for {@link #objects} to read.
 */
final class FlatJson {
    private final String s;
    private int i;

    private FlatJson(String s) {
        this.s = s;
    }

    /** Each field's value as text (a string unescaped, anything else as written). */
    static Map<String, String> parse(String text) {
        return new FlatJson(text).object();
    }

    /** Each object of a JSON array of flat objects, read as {@link #parse} reads one. */
    static List<Map<String, String>> objects(String text) {
        FlatJson p = new FlatJson(text);
        List<Map<String, String>> out = new ArrayList<>();
        p.skip();
        p.expect('[');
        p.skip();
        if (p.peek() == ']') {
            p.i++;
        } else {
            while (true) {
                out.add(p.object());
                p.skip();
                char c = p.next();
                if (c == ']') break;
                if (c != ',') throw p.fail("expected , or ] at character " + (p.i - 1));
            }
        }
        p.skip();
        if (p.i < p.s.length()) throw p.fail("more follows the array at character " + p.i);
        return out;
    }

    private Map<String, String> object() {
        Map<String, String> out = new LinkedHashMap<>();
        skip();
        expect('{');
        skip();
        if (peek() == '}') return out;
        while (true) {
            skip();
            String name = string();
            skip();
            expect(':');
            skip();
            char first = peek();
            out.put(name, first == '"' ? string() : first == '[' || first == '{' ? nested() : bare());
            skip();
            char c = next();
            if (c == '}') return out;
            if (c != ',') throw fail("expected , or } at character " + (i - 1));
        }
    }

    private String bare() {
        int from = i;
        while (i < s.length() && ",}] \t\r\n".indexOf(s.charAt(i)) < 0) {
            if ("{[".indexOf(s.charAt(i)) >= 0) throw fail("nested value at character " + i);
            i++;
        }
        if (i == from) throw fail("missing value at character " + i);
        return s.substring(from, i);
    }

    /** The text of an array or object value, up to its matching bracket; strings inside are skipped whole. */
    private String nested() {
        int from = i;
        int depth = 0;
        do {
            char c = peek();
            if (c == '"') {
                string();
                continue;
            }
            i++;
            if (c == '[' || c == '{') depth++;
            else if (c == ']' || c == '}') depth--;
        } while (depth > 0);
        return s.substring(from, i);
    }

    private String string() {
        expect('"');
        StringBuilder sb = new StringBuilder();
        while (true) {
            char c = next();
            if (c == '"') return sb.toString();
            if (c != '\\') {
                sb.append(c);
                continue;
            }
            char e = next();
            switch (e) {
                case 'n' -> sb.append('\n');
                case 'r' -> sb.append('\r');
                case 't' -> sb.append('\t');
                case 'b' -> sb.append('\b');
                case 'f' -> sb.append('\f');
                case 'u' -> {
                    if (i + 4 > s.length()) throw fail("cut \\u escape");
                    sb.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                    i += 4;
                }
                default -> sb.append(e);
            }
        }
    }

    private void skip() {
        while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
    }

    private char peek() {
        if (i >= s.length()) throw fail("it ends early");
        return s.charAt(i);
    }

    private char next() {
        char c = peek();
        i++;
        return c;
    }

    private void expect(char c) {
        if (next() != c) throw fail("expected " + c + " at character " + (i - 1));
    }

    private IllegalArgumentException fail(String why) {
        return new IllegalArgumentException("not a flat JSON object: " + why);
    }
}
