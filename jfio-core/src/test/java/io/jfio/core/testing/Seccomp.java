package io.jfio.core.testing;

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
 * A seccomp filter that denies io_uring_setup with EPERM, the way container runtimes' default profiles do: lets
 * tests in child JVMs exercise the "no io_uring" paths for real. Shared with other modules through jfio-core's test
 * jar.
 *
 * <p>Thread-safe; stateless.
 */
public final class Seccomp {
    private static final int PR_SET_NO_NEW_PRIVS = 38;      // linux/prctl.h
    private static final long SECCOMP_SET_MODE_FILTER = 1;  // linux/seccomp.h
    private static final long SECCOMP_FILTER_FLAG_TSYNC = 1; // apply to every thread the JVM already started
    private static final int SECCOMP_RET_ERRNO = 0x00050000;
    private static final int SECCOMP_RET_ALLOW = 0x7fff0000;
    private static final int EPERM = 1;
    private static final int NR_IO_URING_SETUP = 425;       // the same on x86_64 and aarch64

    private Seccomp() {
    }

    /**
     * Makes io_uring_setup fail with EPERM for every thread of this process, now and later (SECCOMP_FILTER_FLAG_TSYNC).
     * Irreversible: call it only in a child JVM started for the purpose.
     */
    public static void denyIoUringSetup() throws Throwable {
        Linker linker = Linker.nativeLinker();
        // int prctl(int option, ...): variadic, each argument passed as unsigned long
        MethodHandle prctl = linker.downcallHandle(linker.defaultLookup().find("prctl").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.firstVariadicArg(1));
        // long syscall(long number, ...): seccomp(2) has no glibc wrapper
        MethodHandle syscall = linker.downcallHandle(linker.defaultLookup().find("syscall").orElseThrow(),
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG),
                Linker.Option.firstVariadicArg(1));
        long nrSeccomp = Platform.arch() == Platform.Arch.X86_64 ? 317 : 277;
        try (Arena arena = Arena.ofConfined()) {
            // struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; }: a classic BPF program over
            // struct seccomp_data, whose first field is the system call number.
            MemorySegment prog = arena.allocate(4 * 8L, 8);
            bpf(prog, 0, 0x20, 0, 0, 0);                                 // BPF_LD|BPF_W|BPF_ABS: A = nr
            bpf(prog, 1, 0x15, 0, 1, NR_IO_URING_SETUP);                 // BPF_JMP|BPF_JEQ|BPF_K
            bpf(prog, 2, 0x06, 0, 0, SECCOMP_RET_ERRNO | EPERM);         // BPF_RET: fail with EPERM
            bpf(prog, 3, 0x06, 0, 0, SECCOMP_RET_ALLOW);                 // BPF_RET: everything else runs
            // struct sock_fprog { unsigned short len; struct sock_filter *filter; }
            MemorySegment fprog = arena.allocate(16, 8);
            fprog.set(JAVA_SHORT, 0, (short) 4);
            fprog.set(ADDRESS, 8, prog);
            // Unprivileged processes may only install a filter after promising never to gain privileges.
            if ((int) prctl.invokeExact(PR_SET_NO_NEW_PRIVS, 1L, 0L, 0L, 0L) != 0) {
                throw new IllegalStateException("prctl(PR_SET_NO_NEW_PRIVS) failed");
            }
            long r = (long) syscall.invokeExact(nrSeccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC,
                    fprog.address());
            if (r != 0) throw new IllegalStateException("seccomp(SECCOMP_SET_MODE_FILTER) failed: result=" + r);
        }
    }

    private static void bpf(MemorySegment prog, int index, int code, int jt, int jf, int k) {
        long at = 8L * index;
        prog.set(JAVA_SHORT, at, (short) code);
        prog.set(JAVA_BYTE, at + 2, (byte) jt);
        prog.set(JAVA_BYTE, at + 3, (byte) jf);
        prog.set(JAVA_INT, at + 4, k);
    }
}
