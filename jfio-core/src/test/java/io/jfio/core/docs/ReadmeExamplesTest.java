package io.jfio.core.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.file.IoFile;
import io.jfio.core.file.JfioFileChannel;
import io.jfio.core.file.JfioOpenOption;
import io.jfio.core.watch.FileEvent;
import io.jfio.core.watch.FileWatcher;
import io.jfio.core.watch.FileWatchers;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The library examples of README.md, as they are printed there (between the marked lines), run on real files so
 * that the README cannot show code that does not compile or does not work.
 */
class ReadmeExamplesTest {
    @Test
    void fileExampleReadsTheFile() throws Exception {
        // O_DIRECT needs a file system that supports it: the build directory is on the project's disk, not tmpfs.
        Path dir = Files.createTempDirectory(Path.of("target").toAbsolutePath(), "readme-");
        Path path = dir.resolve("data");
        byte[] content = new byte[2 << 20];
        for (int i = 0; i < content.length; i++) content[i] = (byte) (i * 31 + 7);
        Files.write(path, content);
        try {
            long first;
            long second;
            // README: begin
            // Existing FileChannel code switches with one line:
            FileChannel ch = JfioFileChannel.open(path, StandardOpenOption.READ);

            // Or positional I/O on native memory, nothing copied through the heap:
            try (IoFile f = IoFile.open(path, StandardOpenOption.READ, JfioOpenOption.DIRECT);
                 Arena arena = Arena.ofShared()) {                       // asynchronous reads need shared memory
                MemorySegment buf = arena.allocate(1 << 20, 4096);        // O_DIRECT wants aligned memory
                long n = f.readFully(buf, 0);                             // loops over short reads
                CompletableFuture<Long> next = f.readAsync(buf, 1 << 20); // asynchronous, on the ring
                long m = next.join();                                     // done before the arena closes
                // README: end
                first = n;
                second = m;
                assertEquals(content[(1 << 20) + 5], buf.get(java.lang.foreign.ValueLayout.JAVA_BYTE, 5));
            }
            try (ch) {
                assertEquals(content.length, ch.size());
            }
            assertEquals(1 << 20, first);
            assertEquals(1 << 20, second);
        } finally {
            Files.deleteIfExists(path);
            Files.deleteIfExists(dir);
        }
    }

    @Test
    void watcherExampleReportsAChange() throws Exception {
        Path tree = Files.createTempDirectory("readme-watch-");
        List<String> seen = new ArrayList<>();
        boolean[] running = {true};
        try {
            // README: begin
            try (FileWatcher w = FileWatchers.open()) {  // inotify; polls what inotify cannot watch
                w.watchTree(tree);                       // new subdirectories are watched too
                Files.writeString(tree.resolve("a.log"), "x");
                while (running[0]) {
                    for (FileEvent e : w.poll(Duration.ofSeconds(1))) { // one thread polls; wakeup() from any
                        switch (e.kind()) {
                            case OVERFLOW -> seen.add("rescan");                            // events were dropped
                            case MOVED -> seen.add("renamed " + e.from() + " " + e.path()); // paired by cookie
                            default -> seen.add(e.kind() + " " + e.path().getFileName());   // CREATE, MODIFY, ...
                        }
                        running[0] = false;
                    }
                }
            }
            // README: end
            assertTrue(seen.stream().anyMatch(s -> s.endsWith("a.log")), seen.toString());
        } finally {
            Files.deleteIfExists(tree.resolve("a.log"));
            Files.deleteIfExists(tree);
        }
    }
}
