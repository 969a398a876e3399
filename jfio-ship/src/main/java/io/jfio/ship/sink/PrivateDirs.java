package io.jfio.ship.sink;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;

/**
 * Creates the directories the shipper writes to with narrow permissions. Thread-safe; stateless.
 *
 * <p>Directories that exist are left as they are (an administrator chose them); the ones created get {@code mode}
 * (less the umask), so that state, segments and received data are not readable by every local user by default.
 */
public final class PrivateDirs {
    private PrivateDirs() {
    }

    /**
     * Creates {@code dir} and its missing parents with permission bits {@code mode}.
     *
     * @throws java.nio.file.NotDirectoryException when {@code dir} exists and is not a directory
     */
    public static void create(Path dir, int mode) throws IOException {
        if (Files.isDirectory(dir)) return;
        try {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(perms(mode)));
        } catch (java.nio.file.FileAlreadyExistsException e) {
            throw new java.nio.file.NotDirectoryException(dir.toString()); // a file (or a link to one) is there
        }
    }

    /** The mode of a directory that holds files of mode {@code fileMode}: the same bits plus x wherever r is set. */
    public static int dirMode(int fileMode) {
        return fileMode | (fileMode & 0444) >> 2;
    }

    /** {@code mode}'s permission bits as the JDK names them. */
    public static Set<PosixFilePermission> perms(int mode) {
        StringBuilder b = new StringBuilder(9);
        String rwx = "rwxrwxrwx";
        for (int i = 0; i < 9; i++) b.append((mode & (0400 >> i)) != 0 ? rwx.charAt(i) : '-');
        return PosixFilePermissions.fromString(b.toString());
    }
}
