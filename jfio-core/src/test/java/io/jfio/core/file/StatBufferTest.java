package io.jfio.core.file;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@link StatBuffer} against what the JDK reports for the same files: by path, without following a link, by
 * descriptor, after deletion, and for paths that do not exist.
 *
 * <p>Thread-confined to JUnit's test thread.
 */
class StatBufferTest {
    private static final int ENOENT = 2;

    @TempDir
    Path dir;

    @Test
    void pathFollowsLinksLikeTheJdk() throws IOException {
        Path f = Files.writeString(dir.resolve("f"), "hello, stat");
        Files.setLastModifiedTime(f, FileTime.from(Instant.ofEpochSecond(1_700_000_000L, 123_456_789L)));
        Path link = Files.createSymbolicLink(dir.resolve("link"), f);
        try (Arena arena = Arena.ofConfined()) {
            StatBuffer st = new StatBuffer(arena);
            assertEquals(0, st.ofPath(link.toString()));
            assertTrue(st.isRegularFile());
            assertFalse(st.isDirectory() || st.isSymbolicLink());
            assertEquals("file", st.typeName());
            assertEquals(11, st.size());
            assertEquals(1, st.nlink());
            assertEquals(((Number) Files.getAttribute(f, "unix:ino")).longValue(), st.inode());
            assertEquals(((Number) Files.getAttribute(f, "unix:dev")).longValue(), st.device());
            assertEquals((int) Files.getAttribute(f, "unix:uid"), st.uid());
            assertEquals((int) Files.getAttribute(f, "unix:gid"), st.gid());
            assertEquals((int) Files.getAttribute(f, "unix:mode"), st.mode());
            assertEquals(1_700_000_000_123_456_789L, st.mtimeNanos());
            assertEquals(new FileIdentity(st.device(), st.inode()), st.identity());

            FileStat snapshot = st.toFileStat();
            assertEquals(st.identity(), snapshot.identity());
            assertEquals(11, snapshot.size());
            assertTrue(snapshot.isRegularFile());
            assertEquals(1_700_000_000_123_456_789L, snapshot.mtimeNanos());
        }
    }

    @Test
    void creationTimeIsWhatTheJdkReportsOrUnknown() throws IOException {
        Path f = Files.writeString(dir.resolve("born"), "x");
        Files.setLastModifiedTime(f, FileTime.from(Instant.ofEpochSecond(1_600_000_000L)));
        try (Arena arena = Arena.ofConfined()) {
            StatBuffer st = new StatBuffer(arena);
            assertEquals(0, st.ofPath(f.toString()));
            long born = st.birthNanos();
            FileTime jdk = (FileTime) Files.getAttribute(f, "basic:creationTime");
            if (born < 0) {
                // No creation time kept: the JDK then reports the modification time instead.
                assertEquals(jdk, Files.getLastModifiedTime(f));
            } else {
                assertEquals(jdk.to(java.util.concurrent.TimeUnit.NANOSECONDS), born);
                assertTrue(born != st.mtimeNanos(), "the creation time, not the modification time");
            }
        }
    }

    @Test
    void noFollowSeesTheLinkItself() throws IOException {
        Path link = Files.createSymbolicLink(dir.resolve("link"), dir);
        try (Arena arena = Arena.ofConfined()) {
            StatBuffer st = new StatBuffer(arena);
            assertEquals(0, st.ofPathNoFollow(link.toString()));
            assertTrue(st.isSymbolicLink());
            assertEquals("symlink", st.typeName());
            assertEquals(((Number) Files.getAttribute(link, "unix:ino", LinkOption.NOFOLLOW_LINKS)).longValue(),
                    st.inode());
            assertEquals(0, st.ofPath(link.toString()));
            assertTrue(st.isDirectory());
            assertEquals("directory", st.typeName());
        }
    }

    @Test
    void descriptorOutlivesTheName() throws IOException {
        Path f = Files.writeString(dir.resolve("gone"), "abc");
        long inode = ((Number) Files.getAttribute(f, "unix:ino")).longValue();
        try (Arena arena = Arena.ofConfined();
             IoFile file = IoFile.open(f, StandardOpenOption.READ)) {
            Files.delete(f);
            Files.writeString(f, "a new file under the old name");
            StatBuffer st = new StatBuffer(arena);
            assertEquals(0, st.ofFd(file.fd()));
            assertEquals(inode, st.inode());
            assertEquals(3, st.size());
            assertEquals(0, st.nlink());
            assertEquals(file.identity(), st.identity());
        }
    }

    @Test
    void missingPathIsANegatedErrnoAndKeepsTheLastResult() throws IOException {
        Path f = Files.writeString(dir.resolve("f"), "12345");
        try (Arena arena = Arena.ofConfined()) {
            StatBuffer st = new StatBuffer(arena);
            assertEquals(0, st.ofPath(f.toString()));
            assertEquals(-ENOENT, st.ofPath(dir.resolve("missing").toString()));
            assertEquals(-ENOENT, st.ofPathNoFollow(dir.resolve("missing").toString()));
            assertEquals(5, st.size());
            assertTrue(st.isRegularFile());
        }
    }
}
