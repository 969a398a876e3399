package io.jfio.core.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.util.Optional;

/**
 * FFM plumbing shared by every binding: the native linker, the C library's symbols, and errno capture.
 *
 * <p>Thread-safe. Every handle is built once, in a static initialiser of the class that uses it. Calls that set
 * errno are linked with {@code Linker.Option.captureCallState("errno")}: the JVM copies errno into a segment right
 * after the call, before anything else (the JVM included) can overwrite it. Each thread, virtual ones included, has
 * its own capture segment. errno is never read through {@code __errno_location}, which would race with the JVM.
 */
public final class Native {
    static final Linker LINKER = Linker.nativeLinker();
    static final SymbolLookup LIBC = LINKER.defaultLookup();

    private static final StructLayout CAPTURE_LAYOUT = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE_LAYOUT.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /** One capture segment per thread; GC-managed so that short-lived virtual threads do not leak native memory. */
    private static final ThreadLocal<MemorySegment> CAPTURE = ThreadLocal.withInitial(
            () -> Arena.ofAuto().allocate(CAPTURE_LAYOUT));

    static {
        Platform.requireSupported();
    }

    private Native() {
    }

    /** The calling thread's errno capture segment, to pass as the first argument of a capturing handle. */
    static MemorySegment capture() {
        return CAPTURE.get();
    }

    /** errno as captured by the last capturing call on this thread that used {@code capture}. */
    static int errno(MemorySegment capture) {
        return (int) ERRNO.get(capture, 0L);
    }

    /** A libc symbol, or a clear error naming it. */
    static MemorySegment symbol(String name) {
        return LIBC.find(name).orElseThrow(() -> new UnsatisfiedLinkError("libc has no symbol " + name));
    }

    /** A libc symbol that older C libraries may lack. */
    static Optional<MemorySegment> optionalSymbol(String name) {
        return LIBC.find(name);
    }

    /**
     * A handle for a call that sets errno: its first parameter is the capture segment ({@link #capture()}).
     */
    static MethodHandle errnoCall(String name, FunctionDescriptor descriptor, Linker.Option... extra) {
        return errnoCall(symbol(name), descriptor, extra);
    }

    static MethodHandle errnoCall(MemorySegment symbol, FunctionDescriptor descriptor, Linker.Option... extra) {
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = CAPTURE_ERRNO;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol, descriptor, options);
    }

    /** A handle for a call that reports errors through its return value, not errno (posix_fadvise). */
    static MethodHandle plainCall(String name, FunctionDescriptor descriptor, Linker.Option... options) {
        return LINKER.downcallHandle(symbol(name), descriptor, options);
    }
}
