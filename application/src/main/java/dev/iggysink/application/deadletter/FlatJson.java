package dev.iggysink.application.deadletter;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads one flat JSON object (string, number, boolean and null values; no nesting), as dead letters are written: the
 * application layer has no JSON library, and a dead letter needs no more.
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
            out.put(name, peek() == '"' ? string() : bare());
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
