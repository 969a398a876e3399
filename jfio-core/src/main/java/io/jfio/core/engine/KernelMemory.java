package io.jfio.core.engine;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Set;

/**
 * Thread-safe; stateless after initialisation. Tells the kinds of caller memory apart, for {@link RequestMemory}
 * to decide whether the kernel may use a caller's segment directly, or only a bounce buffer the engine owns.
 *
 * <p>Memory may be written directly when it cannot be freed while the request references it: memory of an open
 * {@link IoArena} (the request holds the arena), and memory whose scope lives as long as it is reachable, which is
 * the scope of {@link Arena#global()} (and of {@link MemorySegment#ofAddress}), of an {@link Arena#ofAuto()}
 * arena and of a direct {@link ByteBuffer} (the request keeps the segment, and so the memory, reachable). Memory of
 * an explicitly closed arena ({@link Arena#ofConfined()}, {@link Arena#ofShared()}, a custom arena) may be freed by
 * its owner at any time, and no public JDK API can hold such a scope open for the duration of an asynchronous
 * request, so it is bounced (unless it is confined to the thread blocked until the request is over).
 *
 * <p>The public API does not say which kind of arena a scope belongs to; the JDK implements each kind with its own
 * scope class, so the scope classes of sample segments of the safe kinds are recorded. Should a JDK implement a
 * closeable kind with one of those classes, nothing is treated as safe and every such request is bounced: slower,
 * never unsafe.
 */
final class KernelMemory {
    private static final Set<Class<?>> REACHABILITY_SCOPES = reachabilityScopes();
    /** A thread no arena is confined to: a confined segment is not accessible by it. */
    private static final Thread NOBODY = Thread.ofVirtual().unstarted(() -> { });

    private KernelMemory() {
    }

    private static Set<Class<?>> reachabilityScopes() {
        Set<Class<?>> safe = Set.copyOf(List.of(Arena.global().scope().getClass(), Arena.ofAuto().scope().getClass(),
                MemorySegment.ofBuffer(ByteBuffer.allocateDirect(1)).scope().getClass()));
        try (Arena shared = Arena.ofShared(); Arena confined = Arena.ofConfined()) {
            if (safe.contains(shared.scope().getClass()) || safe.contains(confined.scope().getClass())) {
                return Set.of();
            }
        }
        return safe;
    }

    /** True when {@code s} is freed only once unreachable: the kernel may write into it while a request holds it. */
    static boolean freedOnlyWhenUnreachable(MemorySegment s) {
        return REACHABILITY_SCOPES.contains(s.scope().getClass());
    }

    /** True when only the thread that owns {@code s}'s arena may access it. */
    static boolean confined(MemorySegment s) {
        return !s.isAccessibleBy(NOBODY);
    }
}
