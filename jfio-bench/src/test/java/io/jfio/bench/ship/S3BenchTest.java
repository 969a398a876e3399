package io.jfio.bench.ship;

import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class S3BenchTest {
    @Test
    void shouldReadTheJitCompilerThreadsTimeOfARunningJvm() {
        // Compile something for a while so that this JVM's compiler threads have run (the test JVM compiles with
        // C1 and C2, tiered, and names its threads "C1 CompilerThread0", "C2 CompilerThread0").
        long sum = 0;
        for (int i = 0; i < 2_000_000; i++) sum += Long.toString(i).hashCode();
        double seconds = S3Bench.compilerSeconds(ProcessHandle.current().pid());
        assertTrue(seconds > 0 && seconds < 3600, "compiler seconds=" + seconds + " sum=" + sum);
    }

    @Test
    void shouldSayNotMeasuredForAProcessThatIsGone() {
        assertTrue(Double.isNaN(S3Bench.compilerSeconds(Integer.MAX_VALUE)));
    }
}
