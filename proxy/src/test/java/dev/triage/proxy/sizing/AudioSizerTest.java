package dev.triage.proxy.sizing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.triage.features.audio.AudioClip;
import dev.triage.features.audio.AudioDurationReader;
import dev.triage.model.JobEstimator;
import dev.triage.proxy.api.TriageError;
import dev.triage.proxy.testing.FailingEstimator;
import dev.triage.proxy.testing.HeldEstimator;
import dev.triage.proxy.testing.MultipartForm;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AudioSizerTest {

    private static HttpRequest head() {
        HttpRequest head = new DefaultHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/v1/audio/transcriptions");
        head.headers().set("content-type", MultipartForm.CONTENT_TYPE);
        return head;
    }

    private static ByteBuf upload() {
        return Unpooled.wrappedBuffer(new MultipartForm().field("model", "whisper-1").file("a.wav", new byte[4096]).build());
    }

    @Test
    void uploadsWaitingForAReaderAtShutdownAreReleasedAndRefused() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        HeldEstimator<AudioClip> estimator = HeldEstimator.held("held", 10);
        AudioSizer sizer = new AudioSizer(new AudioUploadReader(new AudioDurationReader(), 1 << 20, false), estimator,
                registry.timer("t"), registry.counter("c"), 1, 4);
        List<ByteBuf> bodies = new ArrayList<>();
        List<CompletableFuture<SizedJob>> sized = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            ByteBuf body = upload();
            bodies.add(body);
            sized.add(sizer.size(head(), body));
        }
        assertTrue(estimator.entered.await(30, TimeUnit.SECONDS), "the first upload is being read");
        sizer.close();
        for (int i = 1; i < 3; i++) {
            CompletableFuture<SizedJob> waiting = sized.get(i);
            ExecutionException refused = assertThrows(ExecutionException.class, () -> waiting.get(30, TimeUnit.SECONDS));
            RequestRejectedException rejected = assertInstanceOf(RequestRejectedException.class, refused.getCause());
            assertSame(TriageError.SHUTTING_DOWN, rejected.error());
            assertEquals(1, bodies.get(i).refCnt(), "a refused upload gives its reference back");
        }
        estimator.release.countDown();
        assertEquals(10, sized.get(0).get(30, TimeUnit.SECONDS).estimate().expectedTokens());
        assertEquals(1, bodies.get(0).refCnt(), "the upload being read gives its reference back when done");
        bodies.forEach(ByteBuf::release);
    }

    @Test
    void aFullReaderQueueAnswersQueueFullAndKeepsNothing() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        HeldEstimator<AudioClip> estimator = HeldEstimator.held("held", 10);
        AudioSizer sizer = new AudioSizer(new AudioUploadReader(new AudioDurationReader(), 1 << 20, false), estimator,
                registry.timer("t"), registry.counter("c"), 1, 1);
        ByteBuf reading = upload();
        ByteBuf waiting = upload();
        ByteBuf refused = upload();
        CompletableFuture<SizedJob> first = sizer.size(head(), reading);
        assertTrue(estimator.entered.await(30, TimeUnit.SECONDS));
        CompletableFuture<SizedJob> second = sizer.size(head(), waiting);
        CompletableFuture<SizedJob> third = sizer.size(head(), refused);
        ExecutionException full = assertThrows(ExecutionException.class, () -> third.get(30, TimeUnit.SECONDS));
        assertSame(TriageError.QUEUE_FULL, assertInstanceOf(RequestRejectedException.class, full.getCause()).error());
        assertEquals(1, refused.refCnt());
        estimator.release.countDown();
        first.get(30, TimeUnit.SECONDS);
        second.get(30, TimeUnit.SECONDS);
        sizer.close();
        assertEquals(1, reading.refCnt());
        assertEquals(1, waiting.refCnt());
        List.of(reading, waiting, refused).forEach(ByteBuf::release);
    }

    @Test
    void memoryRunningOutWhileAnUploadIsReadIsAQueueFullToRetryNotAnInternalError() throws Exception {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JobEstimator<AudioClip> starved = new FailingEstimator<>("starved", () -> {
            throw new OutOfMemoryError("Cannot reserve 25165824 bytes of direct buffer memory");
        });
        AudioSizer sizer = new AudioSizer(new AudioUploadReader(new AudioDurationReader(), 1 << 20, false), starved,
                registry.timer("t"), registry.counter("c"), 1, 1);
        ByteBuf body = upload();
        ExecutionException failed = assertThrows(ExecutionException.class, () -> sizer.size(head(), body).get(30, TimeUnit.SECONDS));
        RequestRejectedException rejected = assertInstanceOf(RequestRejectedException.class, failed.getCause());
        assertSame(TriageError.QUEUE_FULL, rejected.error());
        assertTrue(rejected.error().retryable());
        assertEquals(1, body.refCnt(), "the upload gives its reference back");
        sizer.close();
        body.release();
    }
}
