package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserDefinedFileAttributeView;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * cp's options, each run with GNU cp ({@code /usr/bin/cp}) and {@code jfio copy} with the same arguments on the same
 * source tree, and the two results compared: types, sizes, contents, modes, owners, link counts, xattrs, mtimes
 * where kept, allocated blocks where holes matter, and the {@code -v} lines.
 */
class CopyLikeCpTest {
    private static final Path CP = Path.of("/usr/bin/cp");
    private static final int MIB = 1 << 20;

    /** What to compare besides types, sizes, contents, modes, owners, link counts and xattrs. */
    private record Compare(boolean mtimes, boolean blocks) {
    }

    /**
     * A tree with a sparse file, a file of zeros, hard links, a symlink, user xattrs, a FIFO, unusual modes, another
     * owner and old mtimes.
     */
    private static Path tree(Path dir) throws Exception {
        Files.createDirectories(dir.resolve("s/sub/deep"));
        Path s = dir.resolve("s");
        Files.writeString(s.resolve("a"), "alpha");
        Files.writeString(s.resolve("sub/b"), "beta");
        Files.writeString(s.resolve("sub/deep/c"), "gamma");
        Files.writeString(s.resolve("it's"), "quote");
        try (RandomAccessFile f = new RandomAccessFile(s.resolve("holes").toFile(), "rw")) {
            f.setLength(8L * MIB);
            f.seek(2L * MIB);
            f.write("data in the middle".getBytes(StandardCharsets.US_ASCII));
            f.seek(8L * MIB - 5);
            f.write("end!!".getBytes(StandardCharsets.US_ASCII));
        }
        byte[] zeros = new byte[4 * MIB];
        zeros[MIB] = 1;
        Files.write(s.resolve("zeros"), zeros);
        Files.createLink(s.resolve("hard"), s.resolve("a"));
        Files.createLink(s.resolve("sub/hard2"), s.resolve("a"));
        Files.createSymbolicLink(s.resolve("link"), Path.of("sub/b"));
        run(List.of("mkfifo", s.resolve("fifo").toString()));
        UserDefinedFileAttributeView x = Files.getFileAttributeView(s.resolve("sub/b"),
                UserDefinedFileAttributeView.class);
        x.write("user.origin", ByteBuffer.wrap("test".getBytes(StandardCharsets.UTF_8)));
        Files.getFileAttributeView(s.resolve("sub"), UserDefinedFileAttributeView.class)
                .write("user.dir", ByteBuffer.wrap("d".getBytes(StandardCharsets.UTF_8)));
        Files.setPosixFilePermissions(s.resolve("sub/b"), PosixFilePermissions.fromString("rw-r-----"));
        Files.setPosixFilePermissions(s.resolve("sub/deep"), PosixFilePermissions.fromString("rwxr-x---"));
        Files.setAttribute(s.resolve("sub/deep/c"), "unix:uid", 65534);
        Files.setAttribute(s.resolve("sub/deep/c"), "unix:gid", 65534);
        FileTime old = FileTime.fromMillis(1_500_000_000_123L);
        try (Stream<Path> all = Files.walk(s)) {
            for (Path p : all.sorted((p, q) -> q.getNameCount() - p.getNameCount()).toList()) {
                // not the FIFO: setting its times through Java opens it, which waits for a writer
                if (Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS)
                        || Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                    Files.setLastModifiedTime(p, old);
                }
            }
        }
        return s;
    }

    private static String run(List<String> cmd) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "timed out: " + cmd);
        assertEquals(0, p.exitValue(), cmd + ": " + out);
        return out;
    }

    /** GNU cp with {@code args}; its stdout. */
    private static String cp(List<String> args) throws Exception {
        return cpIn(null, args);
    }

    /** GNU cp with {@code args} in the working directory {@code cwd} (null: ours); its stdout. */
    private static String cpIn(Path cwd, List<String> args) throws Exception {
        assumeTrue(Files.isExecutable(CP), "GNU cp is not at /usr/bin/cp: nothing to compare with");
        List<String> cmd = new ArrayList<>(List.of(CP.toString()));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).directory(cwd == null ? null : cwd.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "cp " + args);
        return out;
    }

    /** {@code jfio copy} with {@code args}; its stdout. */
    private static String jfio(List<String> args) {
        List<String> cmd = new ArrayList<>(List.of("copy", "--progress=none"));
        cmd.addAll(args);
        CliTest.Run r = CliTest.run(cmd.toArray(String[]::new));
        assertEquals(ExitCodes.OK, r.exit(), "jfio copy " + args + ": " + r.err());
        return r.out();
    }

    /** {@code jfio copy} with {@code args} in a child JVM working in {@code cwd}; its stdout. */
    private static String jfioIn(Path cwd, List<String> args) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "--enable-native-access=ALL-UNNAMED", "-cp",
                System.getProperty("java.class.path"), Main.class.getName(), "copy", "--progress=none"));
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).directory(cwd.toFile()).redirectError(ProcessBuilder.Redirect.INHERIT)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(ExitCodes.OK, p.exitValue(), "jfio copy " + args);
        return out;
    }

    /** Runs both with {@code before + [target] }... : the target is the last argument, or follows -t. */
    private static String[] both(List<String> args, Path cpTarget, Path jfioTarget, Path marker) throws Exception {
        String c = cp(args.stream().map(a -> a.equals(marker.toString()) ? cpTarget.toString() : a).toList());
        String j = jfio(args.stream().map(a -> a.equals(marker.toString()) ? jfioTarget.toString() : a).toList());
        return new String[] {c, j};
    }

    /** Everything about one entry that a copy should reproduce, keyed by its path below the tree. */
    private static Map<String, String> describe(Path root, Compare what) throws Exception {
        Map<String, String> out = new TreeMap<>();
        List<Path> paths;
        try (Stream<Path> all = Files.walk(root)) {
            paths = all.toList();
        }
        for (Path p : paths) {
            Map<String, Object> a = Files.readAttributes(p, "unix:*", LinkOption.NOFOLLOW_LINKS);
            int mode = (Integer) a.get("mode");
            StringBuilder sb = new StringBuilder(String.format("mode=%o uid=%s gid=%s nlink=%s", mode, a.get("uid"),
                    a.get("gid"), a.get("nlink")));
            boolean dir = Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS);
            boolean link = Files.isSymbolicLink(p);
            boolean regular = Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS);
            if (!dir) sb.append(" size=").append(a.get("size"));
            if (link) sb.append(" -> ").append(Files.readSymbolicLink(p));
            if (regular) sb.append(" sha=").append(Arrays.hashCode(Files.readAllBytes(p)));
            if (what.mtimes() && !link) {
                sb.append(" mtime_s=").append(((FileTime) a.get("lastModifiedTime")).to(TimeUnit.SECONDS));
            }
            if (what.blocks() && regular) {
                long blocks = Long.parseLong(run(List.of("stat", "-c", "%b", p.toString())).trim());
                sb.append(" blocks~").append(blocks / 64); // 32 KiB granules: allocation differs in detail
            }
            if ((regular || dir)) {
                UserDefinedFileAttributeView x = Files.getFileAttributeView(p, UserDefinedFileAttributeView.class);
                for (String n : x.list().stream().sorted().toList()) {
                    ByteBuffer b = ByteBuffer.allocate(x.size(n));
                    x.read(n, b);
                    sb.append(" xattr:").append(n).append('=').append(new String(b.array(), StandardCharsets.UTF_8));
                }
            }
            String rel = root.relativize(p).toString();
            out.put(rel.isEmpty() ? "." : rel, sb.toString());
        }
        return out;
    }

    private static void assertSameTree(Path cpTree, Path jfioTree, Compare what) throws Exception {
        Map<String, String> c = describe(cpTree, what);
        Map<String, String> j = describe(jfioTree, what);
        assertEquals(String.join("\n", c.keySet()), String.join("\n", j.keySet()), "the same entries");
        for (String k : c.keySet()) assertEquals(c.get(k), j.get(k), k);
    }

    /** -v lines, sorted (jfio works in parallel), with the two targets made one. */
    private static List<String> lines(String out, Path target) {
        return out.lines().map(l -> l.replace(target.toString(), "TARGET")).sorted().toList();
    }

    @Test
    void preserveOptionsKeepWhatCpKeeps(@TempDir Path dir) throws Exception {
        Path s = tree(dir);
        List<List<String>> cases = List.of(
                List.of("-r", "-p"),
                List.of("-r", "--preserve"),
                List.of("-r", "--preserve=mode,links"),
                List.of("-r", "--preserve=xattr,timestamps"),
                List.of("-r", "--preserve=all"),
                List.of("-a", "--no-preserve=ownership,links"),
                List.of("-a", "--no-preserve=mode,xattr"),
                List.of("-R", "-p", "--preserve=links", "--no-preserve=timestamps"),
                // Given twice, as cp takes them: flags mean what they mean once, lists add up, the last of -L/-P
                // counts.
                List.of("-rR", "--preserve=mode", "--preserve=timestamps"),
                List.of("-a", "-v", "-v", "--no-preserve=links", "--no-preserve=xattr"),
                List.of("-r", "-L", "-P"),
                List.of("-a", "-L", "-P"),
                // cp -a -L: a symlink to a file of the tree becomes a second name of that file's copy
                List.of("-a", "-P", "-L"));
        int i = 0;
        for (List<String> opts : cases) {
            Path c = dir.resolve("cp" + i);
            Path j = dir.resolve("jfio" + i++);
            List<String> args = new ArrayList<>(opts);
            args.add(s.toString());
            cp(concat(args, c));
            jfio(concat(args, j));
            boolean times = !String.join(" ", opts).contains("no-preserve=timestamps")
                    && (opts.contains("-p") || opts.contains("-a") || opts.contains("--preserve")
                    || String.join(" ", opts).matches(".*--preserve=[a-z,]*(timestamps|all).*"));
            assertSameTree(c, j, new Compare(times, false));
        }
    }

    private static List<String> concat(List<String> args, Path last) {
        List<String> out = new ArrayList<>(args);
        out.add(last.toString());
        return out;
    }

    @Test
    void aclsAreKeptOnlyWithTheModeAsCpKeepsThem(@TempDir Path dir) throws Exception {
        assumeTrue(Files.isExecutable(Path.of("/usr/bin/setfacl")) && Files.isExecutable(Path.of("/usr/bin/getfacl")),
                "needs setfacl and getfacl (acl)");
        Path s = Files.createDirectories(dir.resolve("s/sub")).getParent();
        Files.writeString(s.resolve("f"), "granted");
        Process acl = new ProcessBuilder("/usr/bin/setfacl", "-m", "u:65534:rwx", s.resolve("f").toString(),
                s.resolve("sub").toString()).redirectErrorStream(true).start();
        String aclOut = new String(acl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assumeTrue(acl.waitFor() == 0, "the file system takes no ACLs: " + aclOut);
        // --no-preserve=mode: default permissions, and no ACL granting more; --preserve=xattr alone: no ACL either
        for (List<String> opts : List.of(List.of("-a", "--no-preserve=mode"), List.of("-r", "--preserve=xattr"),
                List.of("-a"))) {
            Path c = dir.resolve("cp" + opts.size() + opts.getLast());
            Path j = dir.resolve("jfio" + opts.size() + opts.getLast());
            cp(concat(concat(opts, s), c));
            jfio(concat(concat(opts, s), j));
            assertSameTree(c, j, new Compare(false, false));
            assertEquals(run(List.of("/usr/bin/getfacl", "-Rp", c.toString())).replace(c.toString(), "T"),
                    run(List.of("/usr/bin/getfacl", "-Rp", j.toString())).replace(j.toString(), "T"), opts.toString());
        }
    }

    @Test
    void targetDirectoryAndNoTargetDirectoryMeanWhatTheyMeanToCp(@TempDir Path dir) throws Exception {
        Path s = tree(dir);
        Path c = Files.createDirectory(dir.resolve("cp"));
        Path j = Files.createDirectory(dir.resolve("jfio"));
        cp(List.of("-a", "-t", c.toString(), s.toString(), s.resolve("a").toString()));
        jfio(List.of("-a", "-t", j.toString(), s.toString(), s.resolve("a").toString()));
        // The -t directories are the test's, not copies: their mtimes say only when each copy wrote there.
        FileTime now = FileTime.fromMillis(System.currentTimeMillis());
        Files.setLastModifiedTime(c, now);
        Files.setLastModifiedTime(j, now);
        assertSameTree(c, j, new Compare(true, false));
        assertTrue(Files.isDirectory(j.resolve("s/sub")));
        // -T: an existing directory is the copy, not the place for it
        Path ct = Files.createDirectory(dir.resolve("cpT"));
        Path jt = Files.createDirectory(dir.resolve("jfioT"));
        cp(List.of("-aT", s.toString(), ct.toString()));
        jfio(List.of("-aT", s.toString(), jt.toString()));
        assertSameTree(ct, jt, new Compare(true, false));
        assertTrue(Files.exists(jt.resolve("sub/b")) && !Files.exists(jt.resolve("s")));
        cp(List.of("--no-target-directory", s.resolve("a").toString(), ct.resolve("newname").toString()));
        jfio(List.of("--no-target-directory", s.resolve("a").toString(), jt.resolve("newname").toString()));
        assertEquals("alpha", Files.readString(jt.resolve("newname")));
    }

    @Test
    void badCombinationsAreOneLineUsageErrorsNamingTheOption(@TempDir Path dir) throws Exception {
        Path s = tree(dir);
        Path file = s.resolve("a");
        Path d = Files.createDirectory(dir.resolve("d"));
        Map<List<String>, String> bad = Map.of(
                List.of("-t", d.toString(), "-T", file.toString(), dir.resolve("x").toString()),
                "-t (--target-directory) and -T (--no-target-directory) contradict each other",
                List.of("--preserve=bogus", file.toString(), dir.resolve("x").toString()),
                "invalid --preserve: 'bogus' is not an attribute",
                List.of("--no-preserve=mode,nope", file.toString(), dir.resolve("x").toString()),
                "invalid --no-preserve: 'nope' is not an attribute",
                List.of("-t", file.toString(), s.resolve("sub/b").toString()),
                "-t: target is not a directory: target='" + file + "'",
                List.of("-t", dir.resolve("missing").toString(), file.toString()),
                "-t: target directory does not exist",
                List.of("-t", "", file.toString()),
                "-t: target directory does not exist: target=''",
                List.of("--sparse=sometimes", file.toString(), dir.resolve("x").toString()),
                "invalid --sparse: sparse=sometimes expected=auto|always|never",
                List.of("-T", file.toString(), file.toString(), d.toString()),
                "-T copies one SRC as DST: extra operand");
        for (Map.Entry<List<String>, String> b : bad.entrySet()) {
            List<String> cmd = new ArrayList<>(List.of("copy"));
            cmd.addAll(b.getKey());
            CliTest.Run r = CliTest.run(cmd.toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.exit(), b.getKey() + ": " + r.err());
            assertEquals(1, r.err().lines().count(), r.err());
            assertTrue(r.err().startsWith("jfio copy: " + b.getValue()), r.err());
        }
        assertFalse(Files.exists(dir.resolve("x")));
    }

    @Test
    void verboseLinesAreCpsLines(@TempDir Path dir) throws Exception {
        Path s = tree(dir);
        Path c = dir.resolve("cp/t");
        Path j = dir.resolve("jfio/t");
        Files.createDirectories(c.getParent());
        Files.createDirectories(j.getParent());
        String co = cp(List.of("-av", s.toString(), c.toString()));
        String jo = jfio(List.of("-av", s.toString(), j.toString()));
        assertEquals(lines(co, c), lines(jo, j));
        assertSameTree(c, j, new Compare(true, false));
        // into an existing directory, as a non-directory copy, with --verbose: still the same lines
        co = cp(List.of("--verbose", s.resolve("a").toString(), s.resolve("it's").toString(), c.toString()));
        jo = jfio(List.of("--verbose", s.resolve("a").toString(), s.resolve("it's").toString(), j.toString()));
        assertEquals(lines(co, c), lines(jo, j));
        assertTrue(jo.contains("\"" + s.resolve("it's") + "\" -> "), jo);
    }

    @Test
    void verboseLinesQuoteNamesThatAreNotUtf8AsCpDoes(@TempDir Path dir) throws Exception {
        Path s = Files.createDirectories(dir.resolve("src"));
        byte[] base = io.jfio.core.sys.PathBytes.bytes(s.toAbsolutePath());
        Path odd = io.jfio.core.sys.PathBytes.path(io.jfio.core.sys.PathBytes.join(base, new byte[] {(byte) 0xfd}));
        Files.createDirectory(odd);
        byte[] oddBytes = io.jfio.core.sys.PathBytes.bytes(odd);
        Files.writeString(io.jfio.core.sys.PathBytes.path(io.jfio.core.sys.PathBytes.join(oddBytes,
                new byte[] {'a', (byte) 0xff, 'b'})), "x");
        Files.writeString(io.jfio.core.sys.PathBytes.path(io.jfio.core.sys.PathBytes.join(oddBytes,
                new byte[] {(byte) 0xc3, (byte) 0xa9, (byte) 0xfe, '\n'})), "y");
        Path c = dir.resolve("cp");
        Path j = dir.resolve("jfio");
        String co = cp(List.of("-rv", s.toString(), c.toString()));
        String jo = jfio(List.of("-rv", s.toString(), j.toString()));
        assertTrue(co.contains("$'\\375'"), co);
        assertEquals(lines(co, c), lines(jo, j));
    }

    @Test
    void dryRunPrintsWhatVerboseWouldAndChangesNothing(@TempDir Path dir) throws Exception {
        Path s = tree(dir);
        Path c = dir.resolve("cp");
        Path j = dir.resolve("jfio");
        String jo = jfio(List.of("-a", "--dry-run", s.toString(), j.toString()));
        assertFalse(Files.exists(j), "nothing created");
        String co = cp(List.of("-av", s.toString(), c.toString()));
        assertEquals(lines(co, c).stream().map(l -> "would copy " + l).sorted().toList(), lines(jo, j));
        // into an existing tree: what -n would skip is not listed, and nothing there changes
        Files.createDirectories(j);
        jfio(List.of("-a", s.toString(), j.toString()));
        Files.delete(j.resolve("s/sub/b"));
        Map<String, String> before = describe(j, new Compare(true, false));
        jo = jfio(List.of("-an", "--dry-run", s.toString(), j.toString()));
        assertEquals(List.of("would copy '" + s.resolve("sub/b") + "' -> 'TARGET/s/sub/b'"), lines(jo, j));
        assertEquals(before, describe(j, new Compare(true, false)));
    }

    @Test
    void oneFileSystemCreatesTheMountPointButNotWhatIsMounted(@TempDir Path dir) throws Exception {
        Path s = tree(dir);
        Path mnt = Files.createDirectory(s.resolve("sub/mnt"));
        Tmpfs fs = Tmpfs.mount(mnt, "size=1m,mode=0751");
        assumeTrue(fs != null, "mounting a tmpfs was refused (needs root): -x cannot be tested");
        try {
            Files.writeString(mnt.resolve("inside"), "on another file system");
            Files.createDirectory(mnt.resolve("dir"));
            Path c = dir.resolve("cp");
            Path j = dir.resolve("jfio");
            String co = cp(List.of("-axv", s.toString(), c.toString()));
            String jo = jfio(List.of("-axv", s.toString(), j.toString()));
            assertEquals(lines(co, c), lines(jo, j));
            assertSameTree(c, j, new Compare(true, false));
            assertTrue(Files.isDirectory(j.resolve("sub/mnt")), "the mount point is created");
            assertFalse(Files.exists(j.resolve("sub/mnt/inside")), "what is mounted is not copied");
            // without -x everything is copied, as cp does
            jfio(List.of("-r", "--one-file-system", s.toString(), dir.resolve("x").toString()));
            jfio(List.of("-r", s.toString(), dir.resolve("all").toString()));
            assertFalse(Files.exists(dir.resolve("x/sub/mnt/inside")));
            assertTrue(Files.exists(dir.resolve("all/sub/mnt/inside")));
        } finally {
            fs.close();
        }
    }

    @Test
    void parentsCopiesUnderTheWholeSourceName(@TempDir Path dir) throws Exception {
        Path s = tree(dir);
        Path c = Files.createDirectory(dir.resolve("cp"));
        Path j = Files.createDirectory(dir.resolve("jfio"));
        for (List<String> opts : List.of(List.of("-v", "--parents"), List.of("-av", "--parents"))) {
            // relative sources, as --parents is used: both run in dir. One source: cp gives the directories on the
            // way their times after each source, so a later source into them moves their mtime; jfio after all.
            List<String> args = new ArrayList<>(opts);
            args.add("s/sub/deep/c");
            String co = cpIn(dir, concat(args, Path.of("cp")));
            String jo = jfioIn(dir, concat(args, Path.of("jfio")));
            assertEquals(co.replace("cp/", "T/").lines().sorted().toList(),
                    jo.replace("jfio/", "T/").lines().sorted().toList());
            assertEquals(co.lines().count(), jo.lines().count());
            assertTrue(Files.exists(j.resolve("s/sub/deep/c")), jo);
            // The target directories are the test's, not copies: their mtimes say only when each copy wrote there.
            FileTime now = FileTime.fromMillis(System.currentTimeMillis());
            Files.setLastModifiedTime(c, now);
            Files.setLastModifiedTime(j, now);
            assertSameTree(c, j, new Compare(opts.contains("-av"), false));
            deleteTree(c);
            deleteTree(j);
            Files.createDirectory(c);
            Files.createDirectory(j);
        }
        CliTest.Run r = CliTest.run("copy", "--parents", s.resolve("a").toString(), s.resolve("sub/b").toString());
        assertEquals(ExitCodes.USAGE, r.exit(), r.err());
        assertTrue(r.err().startsWith("jfio copy: --parents copies into a directory"), r.err());
    }

    @Test
    void parentsShowsTheDirectoriesOnTheWayUnquotedWhateverDotsAndSlashesTheSourceHas(@TempDir Path dir)
            throws Exception {
        Path s = tree(dir);
        Path j = Files.createDirectory(dir.resolve("jfio"));
        // cp shows `s/./sub -> T/s/./sub`, unquoted; jfio normalises the names (docs/copy.md) but keeps cp's form
        String jo = jfio(List.of("-v", "--parents", s + "/./sub//deep/c", j.toString()));
        List<String> lines = jo.lines().toList();
        assertTrue(lines.contains(s + "/sub -> " + j + s + "/sub"), jo);
        assertTrue(lines.contains(s + "/sub/deep -> " + j + s + "/sub/deep"), jo);
        assertEquals(1, lines.stream().filter(l -> l.startsWith("'")).count(), jo); // the file's line
    }

    private static void deleteTree(Path p) throws IOException {
        try (Stream<Path> all = Files.walk(p)) {
            for (Path q : all.sorted((a, b) -> b.getNameCount() - a.getNameCount()).toList()) Files.delete(q);
        }
    }

    @Test
    void sparseMakesTheHolesCpMakes(@TempDir Path dir) throws Exception {
        Path s = tree(dir);
        for (String when : List.of("auto", "always", "never")) {
            Path c = dir.resolve("cp-" + when);
            Path j = dir.resolve("jfio-" + when);
            cp(List.of("--sparse=" + when, s.resolve("holes").toString(), c.toString()));
            cp(List.of("--sparse=" + when, s.resolve("zeros").toString(), c + "z"));
            jfio(List.of("--sparse=" + when, s.resolve("holes").toString(), j.toString()));
            jfio(List.of("--sparse=" + when, s.resolve("zeros").toString(), j + "z"));
            assertEquals(Files.mismatch(s.resolve("holes"), j), -1L, when);
            assertEquals(Files.mismatch(s.resolve("zeros"), Path.of(j + "z")), -1L, when);
            long cb = blocks(c);
            long jb = blocks(j);
            long czb = blocks(Path.of(c + "z"));
            long jzb = blocks(Path.of(j + "z"));
            // 512-byte blocks; file systems allocate a little differently around the data: 64 KiB of slack
            assertTrue(Math.abs(cb - jb) <= 128, when + ": holes: cp=" + cb + " jfio=" + jb);
            assertTrue(Math.abs(czb - jzb) <= 128, when + ": zeros: cp=" + czb + " jfio=" + jzb);
        }
        assertTrue(blocks(dir.resolve("jfio-neverz")) > 4 * blocks(dir.resolve("jfio-alwaysz")),
                "zeros became holes");
        assertTrue(blocks(dir.resolve("jfio-never")) > 4 * blocks(dir.resolve("jfio-auto")), "holes written as zeros");
    }

    private static long blocks(Path p) throws Exception {
        return Long.parseLong(run(List.of("stat", "-c", "%b", p.toString())).trim());
    }
}
