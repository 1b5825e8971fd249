package dev.triage.features;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A read-only, allocation-free lookup from a word of a prompt (a range of characters, any case) to
 * what {@link LexicalFeatures} knows about it. Built once from the word lists of
 * {@link LexicalFeatures}; open addressing over lower-case ASCII words, so a lookup costs one hash
 * probe and a short character comparison, with no substring or lower-casing of the prompt.
 */
final class KeywordTable {

    /** Longer words are never keywords, so the scanner does not look them up. */
    static final int MAX_WORD_LENGTH = 16;

    static final int CODE = 1;
    static final int LENGTH = 1 << 1;
    static final int FORMAT = 1 << 2;
    static final int CLAUSE = 1 << 3;
    static final int NUMBER = 1 << 4;
    static final int UNIT = 1 << 5;
    static final int COURTESY = 1 << 6;

    /** A word the table knows, with the features it sets and the phrases it ends. */
    static final class Entry {
        final char[] word;
        final int id;
        int flags;
        LeadingVerb verb;
        Phrase[] phrasesEndingHere = new Phrase[0];

        Entry(String word, int id) {
            this.word = word.toCharArray();
            this.id = id;
        }
    }

    /** A phrase of two or three words; {@code before} holds the ids of the words before its last. */
    record Phrase(int[] before, int flags) {}

    // Open addressing with the full hash beside each entry: most words of a prompt are no keyword,
    // and comparing hashes rejects them without touching an entry or its characters.
    private final Entry[] slots;
    private final int[] slotHashes;
    private final int mask;

    private KeywordTable(List<Entry> entries) {
        int size = Integer.highestOneBit(Math.max(16, entries.size() * 4 - 1)) << 1;
        slots = new Entry[size];
        slotHashes = new int[size];
        mask = size - 1;
        for (Entry entry : entries) {
            int hash = hash(entry.word);
            int slot = slot(hash);
            while (slots[slot] != null) {
                slot = (slot + 1) & mask;
            }
            slots[slot] = entry;
            slotHashes[slot] = hash;
        }
    }

    /** Incremental hash step over a lower-case ASCII character; the scanner computes it as it reads. */
    static int hashStep(int hash, char lowerCase) {
        return 31 * hash + lowerCase;
    }

    private static int hash(char[] word) {
        int hash = 0;
        for (char c : word) {
            hash = hashStep(hash, c);
        }
        return hash;
    }

    private int slot(int hash) {
        return (hash ^ (hash >>> 16)) & mask;
    }

    /**
     * The entry for {@code text[start, start + length)}, compared ASCII-case-insensitively, or null.
     * {@code hash} is the {@link #hashStep} hash of the lower-cased word.
     */
    Entry find(char[] text, int start, int length, int hash) {
        for (int slot = slot(hash); ; slot = (slot + 1) & mask) {
            Entry entry = slots[slot];
            if (entry == null) {
                return null;
            }
            if (slotHashes[slot] == hash && matches(entry.word, text, start, length)) {
                return entry;
            }
        }
    }

    private static boolean matches(char[] word, char[] text, int start, int length) {
        if (word.length != length) {
            return false;
        }
        for (int i = 0; i < length; i++) {
            char c = text[start + i];
            if (c >= 'A' && c <= 'Z') {
                c = (char) (c | 0x20);
            }
            if (c != word[i]) {
                return false;
            }
        }
        return true;
    }

    /** Collects words, their flags and phrases, then freezes them into a table. */
    static final class Builder {
        private final Map<String, Entry> entries = new LinkedHashMap<>();

        Builder words(List<String> words, int flags) {
            for (String word : words) {
                entry(word).flags |= flags;
            }
            return this;
        }

        Builder verb(String word, LeadingVerb verb) {
            entry(word).verb = verb;
            return this;
        }

        /** A phrase of two or three space-separated words that sets {@code flags} when it occurs. */
        Builder phrases(List<String> phrases, int flags) {
            for (String phrase : phrases) {
                String[] words = phrase.split(" ");
                if (words.length < 2 || words.length > 3) {
                    throw new IllegalArgumentException("phrase: '" + phrase + "' (expected: 2 or 3 words)");
                }
                int[] before = new int[words.length - 1];
                for (int i = 0; i < before.length; i++) {
                    before[i] = entry(words[i]).id;
                }
                Entry last = entry(words[words.length - 1]);
                List<Phrase> ending = new ArrayList<>(List.of(last.phrasesEndingHere));
                ending.add(new Phrase(before, flags));
                last.phrasesEndingHere = ending.toArray(new Phrase[0]);
            }
            return this;
        }

        private Entry entry(String word) {
            if (word.length() > MAX_WORD_LENGTH || !word.matches("[a-z0-9]+")) {
                throw new IllegalArgumentException("keyword: '" + word + "' (expected: 1 to "
                        + MAX_WORD_LENGTH + " lower-case ASCII letters or digits)");
            }
            return entries.computeIfAbsent(word.toLowerCase(Locale.ROOT), w -> new Entry(w, entries.size()));
        }

        KeywordTable build() {
            return new KeywordTable(new ArrayList<>(entries.values()));
        }
    }
}
