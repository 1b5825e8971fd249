package dev.triage.bench.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Triage run as a process of its own, on this JVM's class path, so that a fault-injection run sees
 * only the proxy in its file descriptors, threads, memory and log. Everything it prints goes to a
 * log file and, line by line, to a {@link LogScan}.
 */
final class TriageProcess implements AutoCloseable {

    private static final Pattern LISTENING = Pattern.compile("listening on /127\\.0\\.0\\.1:(\\d+)");

    private final Process process;
    private final Thread reader;
    private final int port;

    private TriageProcess(Process process, Thread reader, int port) {
        this.process = process;
        this.reader = reader;
        this.port = port;
    }

    /**
     * Starts {@code dev.triage.proxy.Main} with these JVM options and flags, and returns once it listens.
     *
     * @throws IOException if it cannot start, or exits or stays silent instead of listening
     */
    static TriageProcess start(List<String> jvmOptions, List<String> flags, Path log, LogScan scan)
            throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), "dev.triage.proxy.Main"));
        command.addAll(flags);
        Files.createDirectories(log.toAbsolutePath().getParent());
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        CompletableFuture<Integer> listening = new CompletableFuture<>();
        Thread reader = new Thread(() -> copyLog(process, log, scan, listening), "chaos-triage-log");
        reader.setDaemon(true);
        reader.start();
        try {
            return new TriageProcess(process, reader, listening.get(60, TimeUnit.SECONDS));
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IOException("Triage did not start listening; its log: " + log, e);
        } catch (InterruptedException e) {
            process.destroyForcibly(); // no one owns it yet
            throw e;
        }
    }

    private static void copyLog(Process process, Path log, LogScan scan, CompletableFuture<Integer> listening) {
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                Writer out = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            String line;
            while ((line = lines.readLine()) != null) {
                out.write(line);
                out.write('\n');
                scan.accept(line);
                if (!listening.isDone()) {
                    Matcher m = LISTENING.matcher(line);
                    if (m.find()) {
                        listening.complete(Integer.parseInt(m.group(1)));
                    }
                }
            }
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } finally {
            listening.completeExceptionally(new IOException("Triage exited"));
        }
    }

    int port() {
        return port;
    }

    /** Its open files, threads and resident memory now, from {@code /proc}; null where there is no {@code /proc}. */
    ProcessSample sample() {
        Path proc = Path.of("/proc", Long.toString(process.pid()));
        if (!Files.isDirectory(proc)) {
            return null;
        }
        try (Stream<Path> fds = Files.list(proc.resolve("fd"))) {
            long openFiles = fds.count();
            long threads = -1;
            long rssKb = -1;
            for (String line : Files.readAllLines(proc.resolve("status"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("Threads:")) {
                    threads = Long.parseLong(line.substring(8).trim());
                } else if (line.startsWith("VmRSS:")) {
                    rssKb = Long.parseLong(line.substring(6).replace("kB", "").trim());
                }
            }
            return new ProcessSample(openFiles, threads, rssKb * 1024);
        } catch (IOException e) {
            return null; // it exited meanwhile
        }
    }

    /**
     * Asks its JVM for a full garbage collection ({@code jcmd PID GC.run}), after which buffers that
     * were never released are unreachable and Netty reports them as leaks on its next allocations.
     * False when the JDK has no {@code jcmd}.
     */
    boolean collectGarbage() throws IOException, InterruptedException {
        Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
        if (!Files.isExecutable(jcmd)) {
            return false;
        }
        Process gc = new ProcessBuilder(jcmd.toString(), Long.toString(process.pid()), "GC.run")
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        return gc.waitFor(60, TimeUnit.SECONDS) && gc.exitValue() == 0;
    }

    /**
     * Stops it as an operator would (SIGTERM) and waits for it to exit and for its last log line to
     * be read; returns its exit status, or -1 when it had to be killed.
     */
    int stop(Duration grace) throws InterruptedException {
        process.toHandle().destroy(); // SIGTERM; Process.destroy() would also close our end of its output
        if (!process.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly().waitFor();
            reader.join(10_000);
            return -1;
        }
        reader.join(10_000);
        return process.exitValue();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
