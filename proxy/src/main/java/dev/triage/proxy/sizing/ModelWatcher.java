package dev.triage.proxy.sizing;

import dev.triage.proxy.concurrent.DaemonThreadFactory;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads the model when its files change (opt-in, {@code --model-watch}). Writes come in bursts —
 * a copy, then the metadata beside it — so a reload waits until the files have been quiet for a
 * moment.
 */
public final class ModelWatcher implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ModelWatcher.class);

    /** How long the files must stay unchanged before the reload. */
    static final Duration QUIET = Duration.ofMillis(500);

    private final WatchService watcher;
    private final ScheduledExecutorService timer;
    private final Thread thread;
    private ScheduledFuture<?> pending;

    private ModelWatcher(WatchService watcher, Set<Path> files, Runnable reload) {
        this.watcher = watcher;
        this.timer = Executors.newSingleThreadScheduledExecutor(new DaemonThreadFactory("triage-model-watch-timer"));
        this.thread = new DaemonThreadFactory("triage-model-watch").newThread(() -> watch(files, reload));
        this.thread.start();
    }

    /**
     * Watches {@code files} (in one directory) and calls {@code reload} once they have settled after
     * a change.
     */
    public static ModelWatcher start(Set<Path> files, Runnable reload) throws IOException {
        Path directory = files.iterator().next().toAbsolutePath().getParent();
        WatchService watcher = FileSystems.getDefault().newWatchService();
        directory.register(watcher, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
        return new ModelWatcher(watcher, files, reload);
    }

    private void watch(Set<Path> files, Runnable reload) {
        Set<Path> names = files.stream().map(Path::getFileName).collect(java.util.stream.Collectors.toSet());
        try {
            while (true) {
                WatchKey key = watcher.take();
                for (WatchEvent<?> event : key.pollEvents()) {
                    if (event.context() instanceof Path changed && names.contains(changed)) {
                        schedule(reload);
                    }
                }
                key.reset();
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closing
        }
    }

    private synchronized void schedule(Runnable reload) {
        if (pending != null) {
            pending.cancel(false);
        }
        pending = timer.schedule(() -> {
            log.info("model files changed; reloading");
            reload.run();
        }, QUIET.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        try {
            watcher.close();
        } catch (IOException e) {
            log.debug("closing the model watcher: {}", e.toString());
        }
        thread.interrupt();
        timer.shutdownNow();
    }
}
