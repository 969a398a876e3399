package io.jfio.jmh;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One copy of {@code size} bytes: System.arraycopy (heap to heap) vs MemorySegment.copy heap to heap, heap to
 * native and native to native, ns per copy.
 *
 * <p>Not thread-safe: one state per benchmark thread.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class MemcpyBench {
    @Param({"8192", "1048576"})
    public int size;

    private byte[] heapA;
    private byte[] heapB;
    private MemorySegment segA;
    private MemorySegment segB;
    private MemorySegment nativeA;
    private MemorySegment nativeB;
    private Arena arena;

    @Setup
    public void setup() {
        heapA = new byte[size];
        heapB = new byte[size];
        for (int i = 0; i < size; i++) heapA[i] = (byte) (i * 31 + 7);
        segA = MemorySegment.ofArray(heapA);
        segB = MemorySegment.ofArray(heapB);
        arena = Arena.ofConfined();
        nativeA = arena.allocate(size, 64);
        nativeB = arena.allocate(size, 64);
        nativeA.copyFrom(segA);
    }

    @TearDown
    public void tearDown() {
        arena.close();
    }

    @Benchmark
    public byte[] arraycopyHeapToHeap() {
        System.arraycopy(heapA, 0, heapB, 0, size);
        return heapB;
    }

    @Benchmark
    public MemorySegment segmentHeapToHeap() {
        MemorySegment.copy(segA, 0, segB, 0, size);
        return segB;
    }

    @Benchmark
    public MemorySegment segmentHeapToNative() {
        MemorySegment.copy(segA, 0, nativeB, 0, size);
        return nativeB;
    }

    @Benchmark
    public MemorySegment segmentNativeToNative() {
        MemorySegment.copy(nativeA, 0, nativeB, 0, size);
        return nativeB;
    }
}
