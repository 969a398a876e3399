package io.jfio.ship.pipeline;

import io.jfio.core.sys.LibC;

/**
 * Which symlinks the shipper follows. Thread-safe; stateless.
 *
 * <p>The rule, as the kernel's {@code fs.protected_symlinks} has it for sticky directories: a link is followed when
 * its owner is root or the shipper's own user (who put it there on purpose), or owns the target too (someone who
 * could read the target anyway). A user's link to a file only root may read ({@code evil.log -> /etc/shadow}) is not.
 */
final class SourceAccess {
    private static final int EUID = LibC.geteuid();

    private SourceAccess() {
    }

    /** Null when a link owned by {@code linkOwner} to a file owned by {@code targetOwner} may be followed, else why. */
    static String linkRefused(int linkOwner, int targetOwner) {
        if (linkOwner == 0 || linkOwner == EUID || linkOwner == targetOwner) return null;
        return "a symlink owned by uid " + Integer.toUnsignedString(linkOwner) + " to a file owned by uid "
                + Integer.toUnsignedString(targetOwner) + ": only links owned by root, by the shipper's user or by "
                + "the target's owner are followed";
    }
}
