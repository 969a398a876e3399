package io.jfio.core.engine;

import io.jfio.core.testing.Seccomp;

/**
 * Run in a child JVM by {@link FallbackTest}: denies io_uring_setup for the whole process ({@link Seccomp}), then asks
 * {@link Engines} for an engine and for an {@link EventRing}, and prints what it got.
 */
public final class SeccompChild {
    private SeccompChild() {
    }

    public static void main(String[] args) throws Throwable {
        Seccomp.denyIoUringSetup();
        try (IoEngine engine = Engines.create()) {
            System.out.println("engine=" + engine.name());
            System.out.println("reason=" + Engines.fallbackReason());
        } catch (Exception e) {
            System.out.println("error=" + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
        try (EventRing ring = EventRing.open()) {
            System.out.println("eventring=" + ring);
        } catch (Exception e) {
            System.out.println("eventring=" + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
