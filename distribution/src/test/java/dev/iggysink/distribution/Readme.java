package dev.iggysink.distribution;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The parts of the README that {@link ReadmeCommandsIT} runs or checks: fenced blocks, the command lines of its shell
 * blocks and of its inline code, its tables and its links. Each piece keeps its line number, so that a failure names
 * the README line to fix.
 */
final class Readme {
    /** A fenced block: its language and its lines, the first one at {@code line}. */
    record Block(String language, int line, List<String> lines) {
    }

    /** One command line as the README shows it; {@code fenced} when it comes from a shell block. */
    record Command(int line, String text, boolean fenced) {
        List<String> words() {
            return List.of(text.trim().split("\\s+"));
        }

        @Override
        public String toString() {
            return "README line " + line + ": `" + text + "`";
        }
    }

    /** A code span outside fenced blocks, whitespace folded. */
    record Span(int line, String text) {
    }

    /** A markdown link or image target. */
    record Link(int line, String target) {
    }

    private static final Pattern FENCE = Pattern.compile("^```\\s*([A-Za-z0-9_-]*)\\s*$");
    private static final Pattern SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    /** First words that make an inline code span a command line. */
    private static final List<String> COMMAND_WORDS = List.of("java", "bash", "mvn", "curl", "mc", "sudo", "systemctl",
            "journalctl", "bin/iggy-s3-sink", "/opt/iggy-s3-sink/bin/iggy-s3-sink");
    /** A span that starts with one of the sink's commands and an option is a synopsis of it. */
    private static final Pattern SYNOPSIS = Pattern.compile("^(run|validate|audit) --.*");

    private final List<String> lines;
    private final List<Block> blocks = new ArrayList<>();
    private final List<Span> spans = new ArrayList<>();
    private final List<Link> links = new ArrayList<>();

    Readme(String text) {
        this.lines = text.lines().toList();
        StringBuilder prose = new StringBuilder();
        Block open = null;
        for (int i = 0; i < lines.size(); i++) {
            String l = lines.get(i);
            Matcher fence = FENCE.matcher(l);
            if (fence.matches()) {
                if (open == null) {
                    open = new Block(fence.group(1), i + 2, new ArrayList<>());
                } else {
                    blocks.add(open);
                    open = null;
                }
                prose.append('\n');
                continue;
            }
            if (open != null) {
                open.lines().add(l);
                prose.append('\n');
            } else {
                prose.append(l).append('\n');
            }
        }
        String outside = prose.toString();
        Matcher span = SPAN.matcher(outside);
        while (span.find()) {
            spans.add(new Span(lineAt(outside, span.start()), span.group(1).replaceAll("\\s+", " ").trim()));
        }
        Matcher link = LINK.matcher(outside);
        while (link.find()) links.add(new Link(lineAt(outside, link.start()), link.group(1)));
    }

    private static int lineAt(String text, int offset) {
        int line = 1;
        for (int i = 0; i < offset; i++) if (text.charAt(i) == '\n') line++;
        return line;
    }

    List<Block> blocks(String language) {
        return blocks.stream().filter(b -> b.language().equals(language)).toList();
    }

    List<Span> spans() {
        return spans;
    }

    List<Link> links() {
        return links;
    }

    /**
     * Every command line: each line of a {@code bash}/{@code sh} block that is not a comment, split at {@code &&},
     * and each inline code span that starts with a command word or is a synopsis of a sink command.
     */
    List<Command> commands() {
        List<Command> commands = new ArrayList<>();
        for (Block b : blocks) {
            if (!List.of("bash", "sh", "shell").contains(b.language())) continue;
            for (int i = 0; i < b.lines().size(); i++) {
                String l = b.lines().get(i).trim();
                if (l.isEmpty() || l.startsWith("#")) continue;
                for (String part : l.split("\\s+&&\\s+")) commands.add(new Command(b.line() + i, part.trim(), true));
            }
        }
        for (Span s : spans) {
            String first = s.text().split(" ")[0];
            if (s.text().contains(" ") && COMMAND_WORDS.contains(first) || SYNOPSIS.matcher(s.text()).matches()) {
                commands.add(new Command(s.line(), s.text(), false));
            }
        }
        return commands;
    }

    /** The lines of the section under the {@code ## title} heading, up to the next heading of that level. */
    List<String> section(String title) {
        int start = lines.indexOf("## " + title);
        if (start < 0) throw new AssertionError("README has no section `## " + title + "`");
        int end = start + 1;
        while (end < lines.size() && !lines.get(end).startsWith("## ")) end++;
        return lines.subList(start + 1, end);
    }

    /** Table rows of a section: the cells of each {@code |}-row after the header and separator rows. */
    static List<List<String>> tableRows(List<String> section) {
        List<List<String>> rows = new ArrayList<>();
        for (String l : section) {
            if (!l.startsWith("|") || l.startsWith("|---") || l.startsWith("| ---")) continue;
            List<String> cells = new ArrayList<>();
            for (String c : l.substring(1, l.length() - 1).split("(?<!\\\\)\\|", -1)) cells.add(c.trim());
            rows.add(cells);
        }
        return rows;
    }

    /** GitHub's anchor of each heading of a markdown text: lower case, punctuation dropped, spaces as hyphens. */
    static Map<String, String> anchors(String markdown) {
        Map<String, String> anchors = new LinkedHashMap<>();
        boolean fenced = false;
        for (String l : markdown.lines().toList()) {
            if (l.startsWith("```")) fenced = !fenced;
            if (fenced || !l.startsWith("#")) continue;
            String title = l.replaceFirst("^#+\\s*", "");
            String anchor = title.toLowerCase().replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
            anchors.put(anchor, title);
        }
        return anchors;
    }
}
