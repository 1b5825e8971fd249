package dev.triage.bench.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.triage.bench.workload.WorkloadEntry;
import dev.triage.bench.workload.WorkloadFile;
import dev.triage.features.Prompt;
import dev.triage.model.cli.Flags;
import dev.triage.model.lexical.LexicalEstimator;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulateCommandTest {

    @TempDir
    Path dir;

    @Test
    void runPrintsATableAndWritesTheSummary() throws Exception {
        String output = SimulateCommand.run(Flags.parse(new String[] {"run", "--rho", "0.7", "--requests", "500", "--seeds", "2",
                "--estimate", "classifier:0.15", "--tau", "20", "--policies", "fcfs,sjf-tau,oracle-sjf", "--out", dir.toString()}));
        assertTrue(output.contains("| sjf-tau | short |"), output);
        List<String> csv = Files.readAllLines(dir.resolve("summary.csv"));
        assertEquals(1 + 3 * 3, csv.size(), "header, 3 policies x (short, long, all)");
    }

    @Test
    void lapsTakesItsSettingsAndTheResumeCost() throws Exception {
        String[] common = {"run", "--rho", "0.9", "--requests", "400", "--seeds", "1", "--sizes", "gamma:0.3:10",
            "--estimate", "lognormal:2", "--policies", "sjf,laps,oracle-srpt"};
        String never = SimulateCommand.run(Flags.parse(concat(common, "--laps", "preemptive-levels=0")));
        String pausing = SimulateCommand.run(Flags.parse(concat(common, "--laps", "levels=6,growth=2,first-level=0.5,preemptive-levels=6",
                "--prefill-rate", "500", "--kv-spare-slots", "1")));
        assertEquals(row(never, "sjf"), row(never, "laps"), "without preemptive levels, laps orders as sjf does");
        assertTrue(!row(pausing, "laps").equals(row(pausing, "sjf")), pausing);
        assertTrue(pausing.contains("| oracle-srpt | job |"), pausing);
        var bad = assertThrows(IllegalArgumentException.class,
                () -> SimulateCommand.run(Flags.parse(concat(common, "--laps", "levels=0"))));
        assertTrue(bad.getMessage().contains("levels"), bad.getMessage());
    }

    /**
     * A backend five times wordier than the lexical model expects, in a workload file: the replay
     * learns its scale and its speed from the file's answers, whatever their source.
     */
    @Test
    void prequentialReplaysAWorkloadFile() throws Exception {
        String[] templates = {"What is the capital of country number %d?", "Write a detailed essay, with examples, about city number %d.",
            "List three facts about planet number %d.", "Explain step by step how to implement a parser for language number %d in Java."};
        List<String> prompts = new ArrayList<>();
        for (int i = 0; i < 300; i++) {
            prompts.add(String.format(templates[i % templates.length], i));
        }
        List<WorkloadEntry> entries = new ArrayList<>();
        try (LexicalEstimator lexical = LexicalEstimator.loadDefault()) {
            for (String prompt : prompts) {
                double expected = lexical.estimate(new Prompt(prompt)).expectedTokens();
                entries.add(WorkloadEntry.of(prompt, (int) Math.round(5 * expected * (0.8 + 0.4 * (entries.size() % 5) / 4)), "test"));
            }
        }
        Path file = dir.resolve("wordy.jsonl");
        WorkloadFile.write(file, entries);
        List<PrequentialReplay.Answered> stream;
        try (LexicalEstimator lexical = LexicalEstimator.loadDefault()) {
            stream = PrequentialReplay.ofWorkload(WorkloadFile.read(file), lexical);
        }
        assertEquals(300, stream.size());
        assertEquals(entries.get(1).answerTokens(), stream.get(1).actualTokens(), "the file's order, each with its own answer");
        PrequentialReplay.Figures figures = PrequentialReplay.run(stream, SimulateCommand.REPLAY_SPEED, SimulateCommand.FLAG_DEFAULTS, 1);
        assertTrue(figures.logErrorRatio() < 0.5, figures.describe());
        assertEquals(SimulateCommand.REPLAY_SPEED.secondsPerToken(), figures.serviceTime().secondsPerToken(),
                0.1 * SimulateCommand.REPLAY_SPEED.secondsPerToken(), figures.describe());

        String output = SimulateCommand.run(Flags.parse(new String[] {"prequential", "--workload", file.toString(), "--policies", "sjf",
            "--seeds", "1"}));
        assertTrue(output.startsWith("estimator lexical") && output.contains("wordy.jsonl: 300 requests;") && output.contains("| sjf |"),
                output);
        var both = assertThrows(IllegalArgumentException.class, () -> SimulateCommand.run(Flags.parse(new String[] {"prequential",
            "--workload", file.toString(), "--models", "alpaca-7b"})));
        assertTrue(both.getMessage().contains("give one"), both.getMessage());
    }

    /** The answers a feedback log recorded, one stream per backend in the log's order, as the proxy's learner met them. */
    @Test
    void prequentialReplaysAFeedbackLogBackendByBackend() throws Exception {
        StringBuilder log = new StringBuilder();
        for (int i = 0; i < 240; i++) {
            String prompt = i % 2 == 0 ? "What is the capital of country number " + i + "?" : "Write a detailed essay about city number " + i + ".";
            log.append(String.format(java.util.Locale.ROOT, "{\"format\":\"triage-feedback/1\",\"backend\":\"%s\",\"userTurns\":1,"
                    + "\"systemChars\":0,\"conversationChars\":%d,\"actualTokens\":%d,\"prompt\":\"%s\"}%n", i < 160 ? "wordy" : "terse",
                    prompt.length(), i % 2 == 0 ? 300 : 3000, prompt));
        }
        Path file = Files.writeString(dir.resolve("feedback.jsonl"), log);
        String output = SimulateCommand.run(Flags.parse(new String[] {"prequential", "--feedback", file.toString(), "--policies", "sjf",
            "--seeds", "1"}));
        assertTrue(output.contains("feedback:wordy: 160 requests;") && output.contains("feedback:terse: 80 requests;"), output);
    }

    @Test
    void prequentialRefusesAudio() throws Exception {
        Path clip = dir.resolve("clip.wav");
        Files.write(clip, new byte[] {1, 2, 3});
        Path file = dir.resolve("speech.jsonl");
        Files.writeString(file, "{\"prompt\": \"hello\", \"answer_tokens\": 2}\n{\"prompt\": \"hi\", \"answer_tokens\": 1, \"audio\": \"clip.wav\"}\n");
        try (LexicalEstimator lexical = LexicalEstimator.loadDefault()) {
            var refused = assertThrows(IllegalArgumentException.class, () -> PrequentialReplay.ofWorkload(WorkloadFile.read(file), lexical));
            assertTrue(refused.getMessage().startsWith("entry 2 is an audio file"), refused.getMessage());
        }
    }

    private static String[] concat(String[] first, String... more) {
        String[] all = java.util.Arrays.copyOf(first, first.length + more.length);
        System.arraycopy(more, 0, all, first.length, more.length);
        return all;
    }

    /** The mean sojourn, in seconds, of a policy's short jobs. */
    private static double shortMean(String table, String policy) {
        return Double.parseDouble(row(table, policy, "short").split("\\|")[2].trim().split(" ")[0]);
    }

    /** The statistics of a policy's row for all jobs, without its name. */
    private static String row(String table, String policy) {
        return row(table, policy, "all");
    }

    /** The statistics of a policy's row for a class of jobs, without the policy's name: {@code " short | 20 | 2.14 ± 0.74 | ..."}. */
    private static String row(String table, String policy, String jobClass) {
        return table.lines().filter(line -> line.startsWith("| " + policy + " | " + jobClass + " |")).findFirst().orElseThrow()
                .substring(policy.length() + 4);
    }

    @Test
    void sizesFromAWorkloadFileCanBeEstimatedFromTheirPrompts() throws Exception {
        List<WorkloadEntry> entries = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            entries.add(WorkloadEntry.of("question " + "word ".repeat(i), 20 * i, "test"));
        }
        Path workload = dir.resolve("workload.jsonl");
        WorkloadFile.write(workload, entries);
        String output = SimulateCommand.run(Flags.parse(new String[] {"run", "--sizes", "workload:" + workload, "--estimate", "baseline",
                "--rho", "0.8", "--requests", "300", "--seeds", "1", "--policies", "fcfs,sjf"}));
        assertTrue(output.contains("estimate baseline") && output.contains("| sjf | medium |"), output);
    }

    /**
     * {@code --estimate ranker} runs the shipped ranker on the prompts: on the length-matched burst, whose short and long
     * prompts have the same lengths, it puts the short answers first where the prompt's length cannot.
     */
    @Test
    void aShippedEstimatorSizesAWorkloadFilesPrompts() throws Exception {
        Path workload = dir.resolve("length-matched.jsonl");
        WorkloadFile.write(workload, WorkloadFile.readResource("/workloads/length-matched.jsonl"));
        String[] burst = {"run", "--arrivals", "burst", "--requests", "40", "--sizes", "workload:" + workload, "--seeds", "20",
            "--policies", "sjf", "--service-base", "0.04", "--service-per-token", "0.0005"};
        String ranker = SimulateCommand.run(Flags.parse(concat(burst, "--estimate", "ranker")));
        String length = SimulateCommand.run(Flags.parse(concat(burst, "--estimate", "baseline")));
        assertTrue(ranker.contains("estimate ranker") && length.contains("estimate baseline"), ranker + length);
        double rankerShort = shortMean(ranker, "sjf");
        double lengthShort = shortMean(length, "sjf");
        assertTrue(rankerShort < 0.5 * lengthShort, "short mean: ranker " + rankerShort + " s, prompt length " + lengthShort + " s");
    }

    @Test
    void sweepDrawsTheFigure() throws Exception {
        assumeFontsRender();
        SimulateCommand.run(Flags.parse(new String[] {"sweep", "--out", dir.toString(), "--rho", "0.5,0.8", "--requests", "300",
                "--seeds", "1", "--sizes", "short@0.7=gamma:2:1,long@0.3=normal:9:2", "--estimate", "lognormal:0.3"}));
        BufferedImage image = ImageIO.read(dir.resolve("latency-vs-load.png").toFile());
        assertTrue(image.getWidth() > 1000 && image.getHeight() > 1000);
        List<String> csv = Files.readAllLines(dir.resolve("sweep.csv"));
        assertTrue(csv.get(0).startsWith("rho,policy,class,"), csv.get(0));
        assertEquals(1 + 2 * 4 * 3, csv.size(), "header, 2 loads x 4 policies x (short, long, all)");
    }

    @Test
    void mistakesAreNamedWithWhatWasExpected() {
        assertMessage("--rho or --rate: missing", "run");
        assertMessage("--estimat: unknown option", "run", "--rho", "0.5", "--estimat", "exact");
        assertMessage("--sizes: normal:1 (expected: normal:MEAN:SD or gamma:SHAPE:SCALE, in seconds)", "run", "--sizes", "normal:1");
        assertMessage("--rho: high (expected: a number)", "run", "--rho", "high");
        assertMessage("unknown command fly", "fly");
        assertMessage("--out: missing", "clairvoyant-table9");
    }

    /** Headless AWT draws text through fontconfig; a bare JDK image may have no fonts at all. */
    private static void assumeFontsRender() {
        try {
            Graphics2D g2 = new BufferedImage(8, 8, BufferedImage.TYPE_INT_RGB).createGraphics();
            g2.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g2.drawString("ρ", 0, 8);
            g2.dispose();
        } catch (RuntimeException | Error e) {
            // The JDK reports missing fonts as an Error (InternalError, UnsatisfiedLinkError) or a runtime exception.
            assumeTrue(false, "no fonts for headless drawing (Debian: apt-get install fontconfig fonts-dejavu-core): " + e);
        }
    }

    private static void assertMessage(String expected, String... args) {
        var e = assertThrows(IllegalArgumentException.class, () -> SimulateCommand.run(Flags.parse(args)));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
