package io.jfio.core.sys;

/**
 * The platform jfio runs on: Linux on x86_64 or aarch64, and nothing else.
 *
 * <p>Thread-safe; immutable. The few kernel ABI details that differ between the two architectures (open flags,
 * {@code struct stat}, syscall numbers) are chosen here once, so the rest of the code asks {@link #isX86()} in one
 * place rather than guessing.
 */
public final class Platform {

    /** The architecture names the JDK reports, normalised. */
    public enum Arch { X86_64, AARCH64 }

    private static final String OS = System.getProperty("os.name", "?");
    private static final String OS_ARCH = System.getProperty("os.arch", "?");
    private static final Arch ARCH = switch (OS_ARCH) {
        case "amd64", "x86_64" -> Arch.X86_64;
        case "aarch64", "arm64" -> Arch.AARCH64;
        default -> null;
    };

    private Platform() {
    }

    /** True when this JVM runs on Linux on a supported architecture. */
    public static boolean isSupported() {
        return OS.equals("Linux") && ARCH != null;
    }

    /**
     * Fails early and clearly when jfio cannot run here.
     *
     * @throws UnsupportedPlatformException naming the OS and architecture found
     */
    public static void requireSupported() {
        if (!isSupported()) {
            throw new UnsupportedPlatformException("jfio needs Linux on x86_64 or aarch64: os.name=" + OS
                    + " os.arch=" + OS_ARCH);
        }
    }

    /** The architecture; fails on an unsupported platform. */
    public static Arch arch() {
        requireSupported();
        return ARCH;
    }

    static boolean isX86() {
        return arch() == Arch.X86_64;
    }

    /** Thrown when jfio is loaded on a system it does not support (anything but Linux x86_64/aarch64). */
    public static final class UnsupportedPlatformException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UnsupportedPlatformException(String message) {
            super(message);
        }
    }
}
