package io.jfio.ship.log;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import java.net.UnknownHostException;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;

/**
 * Thread-safe; stateless.
 *
 * <p>The operating system's words for why an operation failed ({@code No space left on device}), whichever way the
 * failure reached Java: an errno from a system call, a JDK file-system exception (some of which carry only the path
 * and say the errno by their type), or a failed name lookup.
 */
public final class OsReason {
    private OsReason() {
    }

    /** Why {@code e} happened, as the operating system says it; the exception's message when it says nothing else. */
    public static String of(Throwable e) {
        if (e instanceof ErrnoException x) return Errno.describe(x.errno());
        if (e instanceof NoSuchFileException) return "No such file or directory";
        if (e instanceof AccessDeniedException) return "Permission denied";
        if (e instanceof NotDirectoryException) return "Not a directory";
        if (e instanceof FileAlreadyExistsException) return "File exists";
        if (e instanceof DirectoryNotEmptyException) return "Directory not empty";
        if (e instanceof FileSystemException f && f.getReason() != null) return f.getReason();
        if (e instanceof UnknownHostException u) return hostReason(u);
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m;
    }

    /** {@code PATH: REASON} when {@code e} names the path it failed on, else {@link #of}. */
    public static String withPath(Throwable e) {
        if (e instanceof FileSystemException f && f.getFile() != null) return f.getFile() + ": " + of(e);
        if (e instanceof ErrnoException x && x.path() != null) return x.path() + ": " + of(e);
        return of(e);
    }

    /** The resolver's reason: the JDK writes {@code HOST: REASON}, or only the host when it has no reason. */
    private static String hostReason(UnknownHostException e) {
        String m = e.getMessage();
        int colon = m == null ? -1 : m.lastIndexOf(": ");
        return colon < 0 ? "Name or service not known" : m.substring(colon + 2);
    }
}
