package io.jfio.core.file;

import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A child process for lock tests: locks the whole file named by its argument with a plain JDK channel, prints
 * {@code locked}, and holds the lock until its standard input closes. POSIX record locks only conflict between
 * processes, so contention needs a second one.
 */
public final class LockHolder {
    private LockHolder() {
    }

    public static void main(String[] args) throws Exception {
        try (FileChannel ch = FileChannel.open(Path.of(args[0]), StandardOpenOption.READ, StandardOpenOption.WRITE);
             FileLock unused = ch.lock()) {
            System.out.println("locked");
            System.out.flush();
            while (System.in.read() >= 0) {
                // hold the lock until the parent closes our stdin
            }
        }
    }
}
