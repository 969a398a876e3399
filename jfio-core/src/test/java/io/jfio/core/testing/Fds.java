package io.jfio.core.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The descriptors of this process, from {@code /proc/self/fd}.
 *
 * <p>Thread-safe; stateless.
 */
public final class Fds {
    private static final Path PROC_FD = Path.of("/proc/self/fd");

    private Fds() {
    }

    /** Descriptor number to what it refers to ({@code /data/x}, {@code pipe:[123]}, {@code anon_inode:[io_uring]}). */
    public static TreeMap<Integer, String> open() throws IOException {
        List<Path> entries;
        try (Stream<Path> s = Files.list(PROC_FD)) {
            entries = new ArrayList<>(s.toList());
        }
        TreeMap<Integer, String> fds = new TreeMap<>();
        for (Path e : entries) {
            try {
                fds.put(Integer.parseInt(e.getFileName().toString()), Files.readSymbolicLink(e).toString());
            } catch (IOException gone) {
                // The directory stream's own descriptor, closed by now: not ours to count.
            }
        }
        return fds;
    }

    /** How many descriptors are open. */
    public static int count() throws IOException {
        return open().size();
    }

    /** True when descriptor {@code fd} is open. */
    public static boolean isOpen(int fd) {
        return Files.exists(PROC_FD.resolve(Integer.toString(fd)), java.nio.file.LinkOption.NOFOLLOW_LINKS);
    }

    /** A test body that may throw anything. */
    @FunctionalInterface
    public interface Body {
        void run() throws Exception;
    }

    /**
     * Runs {@code body} once to load classes and start lazily created resources, then asserts that running it again
     * leaves exactly the descriptors that were open before.
     */
    public static void assertNoLeak(String what, Body body) throws Exception {
        body.run();
        TreeMap<Integer, String> before = open();
        body.run();
        TreeMap<Integer, String> after = open();
        assertEquals(before, after, what + " leaked or closed descriptors");
    }
}
