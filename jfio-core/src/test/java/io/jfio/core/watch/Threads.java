package io.jfio.core.watch;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** The kernel's view of this process's threads, by name ({@code /proc/self/task/TID/comm}, 15 characters). */
final class Threads {
    private Threads() {
    }

    static Path task(String commPrefix) throws IOException {
        List<Path> tasks;
        try (Stream<Path> s = Files.list(Path.of("/proc/self/task"))) {
            tasks = s.toList();
        }
        for (Path t : tasks) {
            try {
                if (Files.readString(t.resolve("comm")).trim().startsWith(commPrefix)) return t;
            } catch (IOException gone) {
                // exited
            }
        }
        throw new IOException("no thread named " + commPrefix);
    }

    /** {@code /proc/self/task/TID/syscall}: the system call the thread is blocked in, number first. */
    static String syscallOf(String commPrefix) throws IOException {
        return Files.readString(task(commPrefix).resolve("syscall")).trim();
    }

    /** User plus system CPU time of the thread, in clock ticks turned into nanoseconds (fields 14 and 15 of stat). */
    static long cpuNanos(String commPrefix) throws IOException {
        String stat = Files.readString(task(commPrefix).resolve("stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
        return ticks * 10_000_000L; // USER_HZ is 100 on Linux
    }
}
