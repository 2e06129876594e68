package dev.iggysink.adapters.config;

import java.util.Collection;
import java.util.Optional;

/** "Did you mean": the closest known key within edit distance 2, since typos are the commonest config bug. */
final class Suggestions {
    static final int MAX_DISTANCE = 2;

    private Suggestions() {
    }

    static Optional<String> closest(String unknown, Collection<String> known) {
        String best = null;
        int bestDistance = MAX_DISTANCE + 1;
        for (String candidate : known) {
            int d = distance(unknown, candidate);
            if (d < bestDistance) {
                best = candidate;
                bestDistance = d;
            }
        }
        return Optional.ofNullable(best);
    }

    /** Optimal string alignment distance: Levenshtein plus adjacent transpositions ("bukcet" is one edit away). */
    static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }
}
