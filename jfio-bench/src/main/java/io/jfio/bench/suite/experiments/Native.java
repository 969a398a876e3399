package io.jfio.bench.suite.experiments;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Small helpers over jfio's LibC bindings for the experiments: open, full preads, the CPU clock rate, the process's
 * CPU time.
 *
 * <p>Thread-safe; stateless.
 */
final class Native {
    private static final int CLOCK_PROCESS_CPUTIME_ID = 2; // CLOCK_PROCESS_CPUTIME_ID in linux/time.h

    // int clock_gettime(clockid_t clockid, struct timespec *tp): cannot fail for this clock
    private static final class ClockGettime {
        static final MethodHandle H = Linker.nativeLinker().downcallHandle(
                Linker.nativeLinker().defaultLookup().find("clock_gettime").orElseThrow(),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
    }

    private Native() {
    }

    /**
     * CPU time of the whole process, all threads, in ns (clock_gettime(CLOCK_PROCESS_CPUTIME_ID)). Precise, where
     * OperatingSystemMXBean.getProcessCpuTime counts in clock ticks, too coarse for short cells.
     */
    static long processCpuNanos() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment ts = a.allocate(16, 8);
            int r = (int) ClockGettime.H.invokeExact(CLOCK_PROCESS_CPUTIME_ID, ts);
            if (r != 0) throw new IllegalStateException("clock_gettime(CLOCK_PROCESS_CPUTIME_ID) failed");
            return ts.get(ValueLayout.JAVA_LONG, 0) * 1_000_000_000L + ts.get(ValueLayout.JAVA_LONG, 8);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new AssertionError(t);
        }
    }

    /** Opens {@code path} with {@code flags} (O_CLOEXEC added). */
    static int open(Path path, int flags) throws ErrnoException {
        String p = path.toString();
        int fd = LibC.openat(Fcntl.AT_FDCWD, p, flags | Fcntl.O_CLOEXEC, 0644);
        return (int) ErrnoException.check(fd, "open", -1, p);
    }

    /** Reads {@code buf.byteSize()} bytes at {@code offset}, looping over short reads; returns the bytes read. */
    static long preadFully(int fd, MemorySegment buf, long offset) throws ErrnoException {
        long done = 0;
        long len = buf.byteSize();
        while (done < len) {
            long n = LibC.pread(fd, buf.asSlice(done), len - done, offset + done);
            ErrnoException.check(n, "pread", fd, "", offset + done, len - done);
            if (n == 0) break;
            done += n;
        }
        return done;
    }

    /** Writes all of {@code buf} at {@code offset}, looping over short writes. */
    static void pwriteFully(int fd, MemorySegment buf, long offset) throws ErrnoException {
        long done = 0;
        long len = buf.byteSize();
        while (done < len) {
            long n = LibC.pwrite(fd, buf.asSlice(done), len - done, offset + done);
            ErrnoException.check(n, "pwrite", fd, "", offset + done, len - done);
            done += n;
        }
    }

    /** The first CPU's "cpu MHz" from /proc/cpuinfo, NaN if unknown. */
    static double cpuMhz() {
        try {
            for (String l : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (l.startsWith("cpu MHz")) return Double.parseDouble(l.substring(l.indexOf(':') + 1).trim());
            }
        } catch (IOException | RuntimeException e) {
            // unknown
        }
        return Double.NaN;
    }
}
