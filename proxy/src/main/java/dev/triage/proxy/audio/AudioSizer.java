package dev.triage.proxy.audio;

import dev.triage.features.audio.AudioClip;
import dev.triage.model.Estimate;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.server.RequestRejectedException;
import dev.triage.proxy.server.RequestSizer;
import dev.triage.proxy.server.SizedJob;
import dev.triage.proxy.server.TriageError;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpRequest;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * Sizes speech-to-text requests: reads the multipart upload and the audio's duration on a bounded
 * executor (it takes milliseconds and may spool a temporary file), then estimates transcript tokens
 * from the duration and language. An upload whose duration cannot be read is still scheduled, by
 * its size, and counted.
 */
public final class AudioSizer implements RequestSizer {

    private final AudioUploadReader reader;
    private final JobEstimator<AudioClip> estimator;
    private final Timer estimatorTimer;
    private final Counter unreadable;
    private final Executor executor;

    /**
     * @param estimatorTimer records reading plus estimating, per upload
     * @param unreadable counts uploads whose duration was estimated from their size
     * @param executor bounded: a full executor answers 429, it does not queue without limit
     */
    public AudioSizer(AudioUploadReader reader, JobEstimator<AudioClip> estimator, Timer estimatorTimer, Counter unreadable,
            Executor executor) {
        this.reader = reader;
        this.estimator = estimator;
        this.estimatorTimer = estimatorTimer;
        this.unreadable = unreadable;
        this.executor = executor;
    }

    @Override
    public CompletableFuture<SizedJob> size(HttpRequest head, ByteBuf body) {
        ByteBuf upload = body.retainedDuplicate(); // read after this returns; the client may leave meanwhile
        try {
            return CompletableFuture.supplyAsync(() -> {
                try {
                    return estimatorTimer.record(() -> read(head, upload));
                } finally {
                    upload.release();
                }
            }, executor);
        } catch (RejectedExecutionException e) {
            upload.release();
            return CompletableFuture.failedFuture(new RequestRejectedException(TriageError.QUEUE_FULL,
                    "too many audio uploads are being read; retry later", null));
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
        return new SizedJob(estimate, upload.priority());
    }
}
