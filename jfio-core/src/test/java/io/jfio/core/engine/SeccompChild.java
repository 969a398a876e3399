package io.jfio.core.engine;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import io.jfio.core.sys.Platform;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * Run in a child JVM by {@link FallbackTest}: installs a seccomp filter that makes io_uring_setup fail with EPERM for
 * every thread of this process (what container runtimes' default profiles do), then asks {@link Engines} for an
 * engine and prints what it got.
 */
public final class SeccompChild {
    private static final int PR_SET_NO_NEW_PRIVS = 38;
    private static final long SECCOMP_SET_MODE_FILTER = 1;
    private static final long SECCOMP_FILTER_FLAG_TSYNC = 1;
    private static final int SECCOMP_RET_ERRNO = 0x00050000;
    private static final int SECCOMP_RET_ALLOW = 0x7fff0000;
    private static final int EPERM = 1;
    private static final int IO_URING_SETUP = 425;

    private SeccompChild() {
    }

    public static void main(String[] args) throws Throwable {
        Linker linker = Linker.nativeLinker();
        MethodHandle prctl = linker.downcallHandle(linker.defaultLookup().find("prctl").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.firstVariadicArg(1));
        MethodHandle syscall = linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.firstVariadicArg(1));
        long seccompNr = Platform.arch() == Platform.Arch.X86_64 ? 317 : 277;
        try (Arena arena = Arena.ofConfined()) {
            // struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; }
            MemorySegment filter = arena.allocate(8 * 4, 8);
            insn(filter, 0, 0x20, 0, 0, 0);                               // ld  [seccomp_data.nr]
            insn(filter, 1, 0x15, 0, 1, IO_URING_SETUP);                  // jeq #425, 0, 1
            insn(filter, 2, 0x06, 0, 0, SECCOMP_RET_ERRNO | EPERM);       // ret ERRNO(EPERM)
            insn(filter, 3, 0x06, 0, 0, SECCOMP_RET_ALLOW);               // ret ALLOW
            // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
            MemorySegment prog = arena.allocate(16, 8);
            prog.set(JAVA_SHORT, 0, (short) 4);
            prog.set(ADDRESS, 8, filter);
            int r = (int) prctl.invokeExact(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L);
            if (r != 0) throw new IllegalStateException("prctl(PR_SET_NO_NEW_PRIVS) failed");
            long s = (long) syscall.invokeExact(seccompNr, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
                    prog.address());
            if (s != 0) throw new IllegalStateException("seccomp(SET_MODE_FILTER) failed: " + s);
        }
        try (IoEngine engine = Engines.create()) {
            System.out.println("engine=" + engine.name());
            System.out.println("reason=" + Engines.fallbackReason());
        } catch (Exception e) {
            System.out.println("error=" + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static void insn(MemorySegment f, int i, int code, int jt, int jf, int k) {
        long base = 8L * i;
        f.set(JAVA_SHORT, base, (short) code);
        f.set(JAVA_BYTE, base + 2, (byte) jt);
        f.set(JAVA_BYTE, base + 3, (byte) jf);
        f.set(JAVA_INT, base + 4, k);
    }
}
