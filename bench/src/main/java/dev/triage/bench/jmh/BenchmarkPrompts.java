package dev.triage.bench.jmh;

import java.util.SplittableRandom;

/**
 * Realistic prompts for the benchmarks: an instruction, pasted material (prose and code), and a
 * closing question, built deterministically to a given length.
 */
final class BenchmarkPrompts {

    private static final String[] PROSE = {
        "The committee reviewed the quarterly figures and found that revenue had grown steadily, ",
        "although costs in the logistics division rose faster than expected because fuel prices climbed. ",
        "Several members asked whether the new warehouse, which opened in March, would reduce delivery times. ",
        "Die Ergebnisse zeigen, dass die Nachfrage im Süden stärker gestiegen ist als im Norden. ",
        "In the meantime the support team answered more tickets than ever, with a median reply under two hours. ",
    };
    private static final String[] CODE = {
        "def total(orders):\n    return sum(o.amount for o in orders if o.status == 'paid')\n",
        "for (int i = 0; i < rows.length; i++) { sum += rows[i].value(); }\n",
        "SELECT region, COUNT(*) FROM orders WHERE created_at > NOW() - INTERVAL '90 days' GROUP BY region;\n",
    };

    private BenchmarkPrompts() {}

    /** A prompt of exactly {@code length} characters (at least 200). */
    static String of(int length, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        StringBuilder text = new StringBuilder("Please summarize the following report in two paragraphs and list the risks:\n\n");
        String ending = "\n\nWhich of these risks should we address first, and why?";
        while (text.length() < length - ending.length()) {
            text.append(random.nextInt(4) == 0 ? CODE[random.nextInt(CODE.length)] : PROSE[random.nextInt(PROSE.length)]);
        }
        text.setLength(length - ending.length());
        return text.append(ending).toString();
    }
}
