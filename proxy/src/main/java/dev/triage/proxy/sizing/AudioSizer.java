package dev.triage.proxy.sizing;

import dev.triage.features.audio.AudioClip;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.concurrent.DaemonThreadFactory;
import dev.triage.proxy.api.TriageError;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Sizes speech-to-text requests: reads the multipart upload and the audio's duration on a bounded
 * executor (it takes milliseconds), then estimates transcript tokens from the duration and language.
 * An upload whose duration cannot be read is still scheduled, by its size, and counted.
 */
public final class AudioSizer implements RequestSizer, AutoCloseable {

    private final AudioUploadReader reader;
    private final JobEstimator<AudioClip> estimator;
    private final Timer estimatorTimer;
    private final Counter unreadable;
    private final ThreadPoolExecutor readers;

    /**
     * @param estimatorTimer records reading plus estimating, per upload
     * @param unreadable counts uploads whose duration was estimated from their size
     * @param threads uploads read at once
     * @param waiting uploads that may wait for a thread; beyond them an upload is answered 429, not
     *     queued without limit
     */
    public AudioSizer(AudioUploadReader reader, JobEstimator<AudioClip> estimator, Timer estimatorTimer, Counter unreadable,
            int threads, int waiting) {
        this.reader = reader;
        this.estimator = estimator;
        this.estimatorTimer = estimatorTimer;
        this.unreadable = unreadable;
        this.readers = new ThreadPoolExecutor(threads, threads, 30, TimeUnit.SECONDS, new ArrayBlockingQueue<>(waiting),
                new DaemonThreadFactory("triage-audio"));
        readers.allowCoreThreadTimeOut(true);
    }

    @Override
    public CompletableFuture<SizedJob> size(HttpRequest head, ByteBuf body) {
        PendingRead read = new PendingRead(head, body.retainedDuplicate()); // read after this returns; the client may leave meanwhile
        try {
            readers.execute(read);
        } catch (RejectedExecutionException e) {
            read.abandon(new RequestRejectedException(TriageError.QUEUE_FULL, "too many audio uploads are being read; retry later",
                    null));
        }
        return read.result;
    }

    /** Stops reading; uploads still waiting for a thread are released and answered as refused. */
    @Override
    public void close() {
        for (Runnable waiting : readers.shutdownNow()) {
            ((PendingRead) waiting).abandon(new RequestRejectedException(TriageError.SHUTTING_DOWN, "the proxy is shutting down",
                    null));
        }
    }

    private SizedJob read(HttpRequest head, ByteBuf body) {
        AudioUpload upload;
        try {
            upload = reader.read(head.headers(), body);
        } catch (AudioUploadException e) {
            throw new CompletionException(new RequestRejectedException(e.problem().error(), e.getMessage(), e.problem().param()));
        }
        if (upload.durationEstimated()) {
            unreadable.increment();
        }
        Estimate estimate = estimator.estimate(upload.clip());
        return new SizedJob(estimate, upload.priority(), 0);
    }

    /** One upload to read; it owns its reference to the body until it has run or been abandoned. */
    private final class PendingRead implements Runnable {

        private final HttpRequest head;
        private final ByteBuf upload;
        private final CompletableFuture<SizedJob> result = new CompletableFuture<>();

        PendingRead(HttpRequest head, ByteBuf upload) {
            this.head = head;
            this.upload = upload;
        }

        @Override
        public void run() {
            SizedJob sized = null;
            Throwable failure = null;
            try {
                sized = estimatorTimer.record(() -> read(head, upload));
            } catch (CompletionException e) {
                failure = e.getCause();
            } catch (OutOfMemoryError e) {
                // The decoder's copy of a large form found no memory (direct buffers run out first): a
                // shortage that passes as the uploads being read finish, so a retry can succeed.
                failure = new RequestRejectedException(TriageError.QUEUE_FULL, "not enough memory to read the upload now; retry later",
                        null);
            } catch (RuntimeException | Error e) {
                failure = e;
            } finally {
                upload.release(); // before the request moves on, so nothing it does can outlive the reference
            }
            if (failure != null) {
                result.completeExceptionally(failure);
            } else {
                result.complete(sized);
            }
        }

        void abandon(RequestRejectedException reason) {
            upload.release();
            result.completeExceptionally(reason);
        }
    }
}
