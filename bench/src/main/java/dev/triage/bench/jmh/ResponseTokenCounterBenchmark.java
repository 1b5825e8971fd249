package dev.triage.bench.jmh;

import dev.triage.proxy.metrics.ResponseTokenCounter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Counting a response's tokens as it goes by, as every scheduled request's relay does on its event
 * loop: a non-streamed chat answer of 200 words with its usage, and a stream of 200 token events,
 * read at once or event by event (as a server that flushes each token is read), each in a pooled
 * direct buffer as Netty reads them.
 *
 * <pre>{@code
 * scripts/jmh ResponseTokenCounterBenchmark
 * }</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class ResponseTokenCounterBenchmark {

    private ByteBuf answer;
    private ByteBuf stream;
    private ByteBuf[] events;

    @Setup(Level.Trial)
    public void start() {
        StringBuilder words = new StringBuilder();
        StringBuilder sse = new StringBuilder();
        for (int i = 0; i < 200; i++) {
            words.append(i == 0 ? "" : " ").append("word").append(i);
            sse.append("data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",")
                    .append("\"choices\":[{\"index\":0,\"delta\":{\"content\":\" word").append(i).append("\"},\"finish_reason\":null}]}\n\n");
        }
        answer = direct("{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,"
                + "\"message\":{\"role\":\"assistant\",\"content\":\"" + words + "\"},\"finish_reason\":\"stop\"}],"
                + "\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":200,\"total_tokens\":212}}");
        stream = direct(sse.append("data: [DONE]\n\n").toString());
        String[] lines = sse.toString().split("(?<=\n\n)");
        events = new ByteBuf[lines.length];
        for (int i = 0; i < lines.length; i++) {
            events[i] = direct(lines[i]);
        }
    }

    private static ByteBuf direct(String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        return PooledByteBufAllocator.DEFAULT.directBuffer(bytes.length).writeBytes(bytes);
    }

    @TearDown(Level.Trial)
    public void stop() {
        answer.release();
        stream.release();
        for (ByteBuf event : events) {
            event.release();
        }
    }

    @Benchmark
    public long answer() {
        ResponseTokenCounter counter = new ResponseTokenCounter();
        counter.accept(answer);
        return counter.tokens().orElseThrow();
    }

    @Benchmark
    public long stream() {
        ResponseTokenCounter counter = new ResponseTokenCounter();
        counter.accept(stream);
        return counter.tokens().orElseThrow();
    }

    @Benchmark
    public long streamByEvents() {
        ResponseTokenCounter counter = new ResponseTokenCounter();
        for (ByteBuf event : events) {
            counter.accept(event);
        }
        return counter.tokens().orElseThrow();
    }
}
