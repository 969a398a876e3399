package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real {@code bin/jfio} launcher and {@code bin/lib/jdk.sh}, run as processes. An integration test (failsafe,
 * after package) because it runs the jar that package built; it never triggers a build itself.
 */
class LauncherIT {
    private static final Path ROOT = Path.of(System.getProperty("jfio.repo.root", "..")).toAbsolutePath()
            .normalize();
    private static final Path JFIO = ROOT.resolve("bin/jfio");
    private static final Path JDK_SH = ROOT.resolve("bin/lib/jdk.sh");
    private static final Path JAR = ROOT.resolve("jfio-cli/target/jfio.jar");
    private static final Path JDK17 = Path.of("/usr/lib/jvm/java-17-openjdk-amd64");
    /** The JDK running this test: Maven's, so 22 or newer. */
    private static final Path THIS_JDK = Path.of(System.getProperty("java.home"));
    private static final long TIMEOUT_SECONDS = 120;

    record Result(int exit, String out, String err) {
    }

    @BeforeAll
    static void jarMustBeFresh() throws IOException {
        // A stale jar would make the launcher run Maven inside this Maven build; say so instead.
        assertTrue(Files.isRegularFile(JAR), "no jar: run the package phase first: jar=" + JAR);
        FileTime jarTime = Files.getLastModifiedTime(JAR);
        List<Path> roots = new ArrayList<>();
        try (Stream<Path> top = Files.list(ROOT)) {
            top.filter(Files::isDirectory).forEach(d -> {
                if (Files.exists(d.resolve("pom.xml"))) roots.add(d.resolve("pom.xml"));
                if (Files.isDirectory(d.resolve("src"))) roots.add(d.resolve("src"));
            });
        }
        roots.add(ROOT.resolve("pom.xml"));
        for (Path r : roots) {
            try (Stream<Path> files = Files.walk(r)) {
                for (Path f : files.toList()) {
                    if (Files.getLastModifiedTime(f).compareTo(jarTime) > 0) {
                        fail("jfio.jar is older than " + f + "; the launcher would rebuild it: jar=" + JAR);
                    }
                }
            }
        }
    }

    static Result run(Path cwd, Map<String, String> env, List<String> command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
        // A null value removes the variable, so that nothing from the environment running the build leaks in.
        env.forEach((k, v) -> {
            if (v == null) {
                pb.environment().remove(k);
            } else {
                pb.environment().put(k, v);
            }
        });
        Path out = Files.createTempFile("jfio-it", ".out");
        Path err = Files.createTempFile("jfio-it", ".err");
        try {
            pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
            pb.redirectOutput(out.toFile());
            pb.redirectError(err.toFile());
            Process p = pb.start();
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                fail("timed out after " + TIMEOUT_SECONDS + " s: " + command);
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    private static Map<String, String> env(String... keyValues) {
        Map<String, String> m = new HashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) m.put(keyValues[i], keyValues[i + 1]);
        return m;
    }

    @Test
    void withoutAJdk22ItExitsWithEnvironmentNamingWhatItFoundAndWhatToInstall(@TempDir Path tmp) throws Exception {
        assumeTrue(Files.isExecutable(JDK17.resolve("bin/java")), "needs JDK 17 at " + JDK17);
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Files.createSymbolicLink(bin.resolve("java"), JDK17.resolve("bin/java"));
        Path empty = Files.createDirectories(tmp.resolve("jvm"));
        Result r = run(tmp, env("JAVA_HOME", JDK17.toString(), "PATH", bin + ":/usr/bin:/bin",
                "JFIO_JVM_DIRS", empty.toString(), "JFIO_JAVA_OPTS", null), List.of(JFIO.toString(), "info"));
        assertEquals(ExitCodes.ENVIRONMENT, r.exit(), r.err());
        assertEquals("", r.out());
        assertEquals(1, r.err().lines().filter(l -> l.startsWith("jfio:")).count(), r.err());
        assertTrue(r.err().contains("no JDK 22 or newer found"), r.err());
        assertTrue(r.err().contains("JAVA_HOME: " + JDK17 + "/bin/java: version 17."), r.err());
        assertTrue(r.err().contains("PATH: " + bin.resolve("java")), r.err());
        assertTrue(r.err().contains("Install a JDK 22 or newer, e.g. 'apt-get install openjdk-25-jdk'"), r.err());
    }

    @Test
    void withoutALocaleItStillShipsANonAsciiName(@TempDir Path tmp) throws Exception {
        // As under cron, systemd or env -i: no LANG, no LC_*. The JVM would see file names as ASCII and could not
        // even name café.log; the launcher gives it a UTF-8 locale.
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("café.log"), "bonjour\n");
        Path out = tmp.resolve("out");
        Result r = run(tmp, env("JAVA_HOME", THIS_JDK.toString(), "JFIO_JAVA_OPTS", null, "LANG", null, "LC_ALL", null,
                "LC_CTYPE", null), List.of(JFIO.toString(), "ship", "--once", "--from", logs + "/*.log", "--to",
                "dir:" + out, "--state", tmp.resolve("state").toString()));
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertEquals("bonjour\n", new String(io.jfio.ship.sink.DirSink.readAll(out), StandardCharsets.UTF_8), r.err());
    }

    @Test
    void withAJdk22ItPrintsInfo(@TempDir Path tmp) throws Exception {
        Result r = run(tmp, env("JAVA_HOME", THIS_JDK.toString(), "JFIO_JAVA_OPTS", null),
                List.of(JFIO.toString(), "info"));
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertTrue(r.out().contains("kernel:") && r.out().contains("io_uring") && r.out().contains("real path:"),
                r.out());
        assertTrue(r.out().contains(tmp.toRealPath().toString()), "PATH defaults to the working directory");
    }

    @Test
    void itWorksThroughASymlinkFromAnyDirectory(@TempDir Path tmp) throws Exception {
        Path link = tmp.resolve("jfio");
        Files.createSymbolicLink(link, JFIO);
        Result r = run(Path.of("/"), env("JAVA_HOME", THIS_JDK.toString(), "JFIO_JAVA_OPTS", null),
                List.of(link.toString(), "info", "--json", tmp.toString()));
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertEquals(tmp.toRealPath().toString(), json.get("path").get("real_path").asText());
    }

    @Test
    void itPassesJfioJavaOptsToTheJvm(@TempDir Path tmp) throws Exception {
        Result threads = run(tmp, env("JAVA_HOME", THIS_JDK.toString(),
                "JFIO_JAVA_OPTS", "-Djfio.engine=threads -Dunused=1"), List.of(JFIO.toString(), "info", "--json"));
        assertEquals(ExitCodes.OK, threads.exit(), threads.err());
        assertEquals("threads", new ObjectMapper().readTree(threads.out()).get("engine").get("selected").asText());

        Result bogus = run(tmp, env("JAVA_HOME", THIS_JDK.toString(), "JFIO_JAVA_OPTS", "-Djfio.engine=bogus"),
                List.of(JFIO.toString(), "info"));
        assertEquals(ExitCodes.USAGE, bogus.exit(), bogus.err());
        assertTrue(bogus.err().contains("invalid -Djfio.engine=bogus"), bogus.err());
    }

    @Test
    void receiveTakesWhatShipSendsOverTcpAndStopsOnSigterm(@TempDir Path tmp) throws Exception {
        Path recv = tmp.resolve("recv");
        Path err = tmp.resolve("receive.err");
        ProcessBuilder pb = new ProcessBuilder(JFIO.toString(), "receive", "--listen", "127.0.0.1:0", "--to",
                recv.toString()).directory(tmp.toFile()).redirectError(err.toFile())
                .redirectOutput(tmp.resolve("receive.out").toFile());
        pb.environment().put("JAVA_HOME", THIS_JDK.toString());
        pb.environment().remove("JFIO_JAVA_OPTS");
        Process receiver = pb.start();
        try {
            java.util.regex.Matcher m = null;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_SECONDS);
            while (System.nanoTime() < deadline) {
                m = java.util.regex.Pattern.compile("event=listening address=127\\.0\\.0\\.1:(\\d+)")
                        .matcher(Files.readString(err));
                if (m.find()) break;
                assertTrue(receiver.isAlive(), Files.readString(err));
                Thread.sleep(20);
            }
            assertTrue(m != null && m.find(0), "no listening line: " + Files.readString(err));
            int port = Integer.parseInt(m.group(1));
            StringBuilder sb = new StringBuilder();
            for (int i = 1; i <= 50_000; i++) sb.append("record ").append(i).append('\n');
            Path file = tmp.resolve("app.log");
            Files.writeString(file, sb);
            Result ship = run(tmp, env("JAVA_HOME", THIS_JDK.toString(), "JFIO_JAVA_OPTS", null), List.of(
                    JFIO.toString(), "ship", "--from", file.toString(), "--to", "tcp:127.0.0.1:" + port, "--state",
                    tmp.resolve("state").toString(), "--once"));
            assertEquals(ExitCodes.OK, ship.exit(), ship.err());
            // --once ends when the receiver acknowledged everything: it is durable in the receiver's file.
            StringBuilder got = new StringBuilder();
            try (Stream<Path> files = Files.list(recv)) {
                for (Path f : files.sorted().toList()) got.append(Files.readString(f));
            }
            assertEquals(sb.toString(), got.toString());
            receiver.destroy(); // SIGTERM
            assertTrue(receiver.waitFor(30, TimeUnit.SECONDS));
            assertEquals(ExitCodes.OK, receiver.exitValue(), Files.readString(err));
            assertTrue(Files.readString(err).contains("event=stop received-bytes=" + sb.length()),
                    Files.readString(err));
        } finally {
            receiver.destroyForcibly();
        }
        Result bad = run(tmp, env("JAVA_HOME", THIS_JDK.toString(), "JFIO_JAVA_OPTS", null),
                List.of(JFIO.toString(), "receive", "--listen", "127.0.0.1:99999", "--to", recv.toString()));
        assertEquals(ExitCodes.USAGE, bad.exit(), bad.err());
        assertTrue(bad.err().contains("invalid --listen"), bad.err());
    }

    /**
     * The launcher's JIT limits for {@code jfio ship} (C2 only, a cap on each compilation's scratch memory) must let
     * C2 compile the methods every line goes through: a method whose compilation needs more than the cap stays
     * interpreted for the life of the shipper, with no C1 to fall back to, and each line then costs several times
     * its CPU. Reads the JVM's compilation log of a real shipper fed lines one at a time.
     */
    @Test
    void shipCompilesTheMethodsEveryLineGoesThrough(@TempDir Path tmp) throws Exception {
        List<String> hot = List.of("io.jfio.ship.pipeline.Pipeline loop ", "io.jfio.ship.pipeline.Pipeline waitBudget ",
                "io.jfio.ship.pipeline.Pipeline flushSink ", "io.jfio.ship.pipeline.Pipeline takeAcks ",
                "io.jfio.ship.pipeline.Harvester harvest ", "io.jfio.ship.pipeline.Harvester send ",
                "io.jfio.core.watch.InotifyWatcher poll ",
                "io.jfio.core.watch.InotifyWatcher handle ");
        Path src = Files.createDirectory(tmp.resolve("src"));
        Path jit = tmp.resolve("jit.log");
        List<FileChannel> files = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            files.add(FileChannel.open(src.resolve("f" + i + ".log"),
                    StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                    StandardOpenOption.APPEND));
        }
        Path err = tmp.resolve("ship.err");
        ProcessBuilder pb = new ProcessBuilder(JFIO.toString(), "ship", "--from", src + "/*.log", "--to",
                "dir:" + tmp.resolve("out"), "--state", tmp.resolve("state").toString()).directory(tmp.toFile())
                .redirectError(err.toFile()).redirectOutput(tmp.resolve("ship.out").toFile());
        pb.environment().put("JAVA_HOME", THIS_JDK.toString());
        // Every event its own turn (no gathered wait), so the pipeline's loop turns as often as lines come.
        pb.environment().put("JFIO_JAVA_OPTS", "-Djfio.ship.gatherMicros=0 -XX:+UnlockDiagnosticVMOptions"
                + " -XX:+LogCompilation -XX:LogFile=" + jit);
        Process ship = pb.start();
        try {
            ByteBuffer line = ByteBuffer.wrap(
                    "a line of an everyday log, written on its own\n".getBytes(StandardCharsets.US_ASCII));
            // A line at a time with a pause after each (a few thousand a second), so that most lines are a turn of
            // the pipeline's loop: C2's thresholds (10,000 calls, 14,000 loop turns) are passed within seconds.
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(12);
            for (int n = 0; System.nanoTime() < end; n++) {
                line.rewind();
                files.get(n % files.size()).write(line);
                LockSupport.parkNanos(100_000);
                assertTrue(ship.isAlive(), () -> "the shipper ended: " + readQuietly(err));
            }
            ship.destroy(); // SIGTERM: the JVM writes the compiler threads' logs into jit.log as it exits
            assertTrue(ship.waitFor(60, TimeUnit.SECONDS), "the shipper did not stop on SIGTERM");
        } finally {
            ship.destroyForcibly();
            for (FileChannel f : files) f.close();
        }
        String log = Files.readString(jit, StandardCharsets.ISO_8859_1);
        Matcher task = Pattern.compile("<task [^>]*method='([^']*)'.*?</task>", Pattern.DOTALL).matcher(log);
        Map<String, List<String>> outcomes = new HashMap<>();
        while (task.find()) {
            for (String h : hot) {
                if (!task.group(1).startsWith(h)) continue;
                String t = task.group(0);
                Matcher failure = Pattern.compile("<failure reason='([^']*)'").matcher(t);
                outcomes.computeIfAbsent(h.trim(), k -> new ArrayList<>()).add(t.contains("<task_done success='1'")
                        ? "compiled" : failure.find() ? failure.group(1) : "not compiled");
            }
        }
        for (String h : hot) {
            List<String> o = outcomes.getOrDefault(h.trim(), List.of());
            assertTrue(o.contains("compiled"), h.trim() + " was never compiled by C2 (its compilations: " + o + ")");
            assertTrue(o.stream().noneMatch(r -> r.contains("memory limit")),
                    h.trim() + " hit the launcher's limit of C2's memory: " + o);
        }
    }

    private static String readQuietly(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void itExitsWithTheCommandsUsageCode(@TempDir Path tmp) throws Exception {
        Result r = run(tmp, env("JAVA_HOME", THIS_JDK.toString(), "JFIO_JAVA_OPTS", null),
                List.of(JFIO.toString(), "info", "/does/not/exist"));
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("no such path: path=/does/not/exist"), r.err());
    }

    @Test
    void jdkShParsesEveryVersionScheme() throws Exception {
        String script = ". '" + JDK_SH + "'; for v in 25.0.1 22 17.0.15 1.8.0_392 26-ea 21.0.2+13-LTS; do "
                + "jfio_java_major \"$v\"; done";
        Result r = run(ROOT, env(), List.of("bash", "-c", script));
        assertEquals(0, r.exit(), r.err());
        assertEquals(List.of("25", "22", "17", "8", "26", "21"), r.out().lines().toList());
    }

    @Test
    void jdkShPicksTheHighestJdkInTheSearchDirectories(@TempDir Path tmp) throws Exception {
        Path jvm = tmp.resolve("jvm");
        fakeJava(jvm.resolve("jdk-8"), "java version \"1.8.0_392\"", true);
        fakeJava(jvm.resolve("jdk-17"), "openjdk version \"17.0.15\" 2025-04-15", true);
        fakeJava(jvm.resolve("jdk-22"), "openjdk version \"22\" 2024-03-19", true);
        fakeJava(jvm.resolve("jdk-25"), "Picked up JAVA_TOOL_OPTIONS: -Dx=1\nopenjdk version \"25.0.1\" 2025-10-21 LTS",
                true);
        fakeJava(jvm.resolve("jre-26"), "openjdk version \"26-ea\" 2026-03-17", false);
        // Something older first on PATH, so that PATH cannot win whatever java this machine has.
        Path bin = tmp.resolve("bin");
        fakeJava(tmp, "openjdk version \"17.0.15\" 2025-04-15", true);
        String script = ". '" + JDK_SH + "'; if jfio_find_jdk; then echo \"$JFIO_JAVA_HOME $JFIO_JAVA_VERSION\"; "
                + "echo \"$JFIO_JAVA\"; else jfio_no_jdk_message; exit 3; fi";
        Result r = run(tmp, env("JAVA_HOME", null, "PATH", bin + ":/usr/bin:/bin",
                "JFIO_JVM_DIRS", tmp.resolve("none") + ":" + jvm), List.of("bash", "-c", script));
        assertEquals(0, r.exit(), r.err());
        Path jdk25 = jvm.resolve("jdk-25").toRealPath();
        assertEquals(List.of(jdk25 + " 25.0.1", jdk25 + "/bin/java"), r.out().lines().toList());

        // Without the 22 and 25, nothing qualifies: every candidate is listed with its version and verdict.
        deleteTree(jvm.resolve("jdk-22"));
        deleteTree(jvm.resolve("jdk-25"));
        Result none = run(tmp, env("JAVA_HOME", null, "PATH", bin + ":/usr/bin:/bin", "JFIO_JVM_DIRS",
                jvm.toString()), List.of("bash", "-c", script));
        assertEquals(ExitCodes.ENVIRONMENT, none.exit(), none.err());
        assertTrue(none.err().contains("JAVA_HOME: not set"), none.err());
        assertTrue(none.err().contains("version 1.8.0_392 (too old)"), none.err());
        assertTrue(none.err().contains("version 26-ea (a runtime only: no javac beside it)"), none.err());
    }

    /** A fake JDK at {@code home}: bin/java prints {@code versionOutput} to stderr like java -version. */
    private static void fakeJava(Path home, String versionOutput, boolean withJavac) throws IOException {
        Path bin = Files.createDirectories(home.resolve("bin"));
        Path java = bin.resolve("java");
        Files.writeString(java, "#!/bin/sh\ncat >&2 <<'EOF'\n" + versionOutput
                + "\nOpenJDK Runtime Environment\nEOF\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        if (withJavac) {
            Path javac = bin.resolve("javac");
            Files.writeString(javac, "#!/bin/sh\nexit 0\n");
            Files.setPosixFilePermissions(javac, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).toList()) Files.delete(p);
        }
    }
}
