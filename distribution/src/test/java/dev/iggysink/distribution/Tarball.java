package dev.iggysink.distribution;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.zip.GZIPInputStream;

/** A minimal reader of the ustar archives the assembly plugin writes: names, modes and contents of regular files. */
final class Tarball {
    record Entry(String name, int mode, boolean directory, byte[] content) {
    }

    private Tarball() {
    }

    static Map<String, Entry> read(Path tarGz) throws IOException {
        Map<String, Entry> entries = new LinkedHashMap<>();
        try (InputStream in = new GZIPInputStream(Files.newInputStream(tarGz))) {
            byte[] header = new byte[512];
            Map<String, String> pax = Map.of();
            while (in.readNBytes(header, 0, 512) == 512 && header[0] != 0) {
                String name = text(header, 0, 100);
                if (text(header, 257, 5).equals("ustar")) {
                    String prefix = text(header, 345, 155);
                    if (!prefix.isEmpty()) name = prefix + "/" + name;
                }
                int mode = (int) octal(header, 100, 8);
                long size = octal(header, 124, 12);
                char type = (char) header[156];
                byte[] content = in.readNBytes((int) size);
                in.readNBytes((int) ((512 - size % 512) % 512));
                if (type == 'x') {
                    // A POSIX extended header: its path (and other fields) apply to the next entry.
                    pax = paxRecords(content);
                    continue;
                }
                if (type == 'g' || type == 'L') throw new IOException("unsupported tar entry type " + type);
                name = pax.getOrDefault("path", name);
                pax = Map.of();
                entries.put(name, new Entry(name, mode, type == '5' || name.endsWith("/"), content));
            }
        }
        return entries;
    }

    /** Records "length key=value\n"; the length counts the whole record. */
    private static Map<String, String> paxRecords(byte[] content) {
        Map<String, String> records = new LinkedHashMap<>();
        int at = 0;
        while (at < content.length) {
            int space = at;
            while (content[space] != ' ') space++;
            int length = Integer.parseInt(new String(content, at, space - at, StandardCharsets.US_ASCII));
            String record = new String(content, space + 1, at + length - space - 2, StandardCharsets.UTF_8);
            int eq = record.indexOf('=');
            records.put(record.substring(0, eq), record.substring(eq + 1));
            at += length;
        }
        return records;
    }

    /** Writes every entry under {@code dir} with its permission bits. */
    static void unpack(Map<String, Entry> entries, Path dir) throws IOException {
        for (Entry e : entries.values()) {
            Path target = dir.resolve(e.name()).normalize();
            if (!target.startsWith(dir)) throw new IOException("entry outside the archive root: " + e.name());
            if (e.directory()) {
                Files.createDirectories(target);
                continue;
            }
            Files.createDirectories(target.getParent());
            Files.write(target, e.content());
            Files.setPosixFilePermissions(target, permissions(e.mode()));
        }
    }

    static Set<PosixFilePermission> permissions(int mode) {
        PosixFilePermission[] bits = {
            PosixFilePermission.OTHERS_EXECUTE, PosixFilePermission.OTHERS_WRITE, PosixFilePermission.OTHERS_READ,
            PosixFilePermission.GROUP_EXECUTE, PosixFilePermission.GROUP_WRITE, PosixFilePermission.GROUP_READ,
            PosixFilePermission.OWNER_EXECUTE, PosixFilePermission.OWNER_WRITE, PosixFilePermission.OWNER_READ};
        Set<PosixFilePermission> set = EnumSet.noneOf(PosixFilePermission.class);
        for (int i = 0; i < bits.length; i++) {
            if ((mode & (1 << i)) != 0) set.add(bits[i]);
        }
        return set;
    }

    static List<String> names(Map<String, Entry> entries) {
        return new ArrayList<>(entries.keySet());
    }

    private static String text(byte[] header, int offset, int length) {
        int end = offset;
        while (end < offset + length && header[end] != 0) end++;
        return new String(header, offset, end - offset, StandardCharsets.UTF_8);
    }

    private static long octal(byte[] header, int offset, int length) {
        String digits = text(header, offset, length).strip();
        return digits.isEmpty() ? 0 : Long.parseLong(digits, 8);
    }

    static String string(Entry e) {
        return new String(e.content(), StandardCharsets.UTF_8);
    }
}
