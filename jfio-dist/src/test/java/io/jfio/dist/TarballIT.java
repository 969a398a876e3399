package io.jfio.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.ship.testing.KafkaBroker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The release tarball, unpacked into a clean directory and run as a user would: through a symlink, from another
 * directory, with an empty environment whose {@code PATH} has no java and no {@code JAVA_HOME}, so that only the
 * bundled runtime can run it. Runs after {@code ./mvnw -Prelease package} built the tarball (failsafe, in
 * jfio-dist, which only the release profile builds).
 *
 * <p>Not thread-safe; JUnit runs its methods one after another.
 */
class TarballIT {
    private static final String TARBALL = System.getProperty("jfio.dist.tarball", "");
    private static final long TIMEOUT_SECONDS = 120;
    /** The few tools the launcher uses besides the shell's built-ins; nothing else is on PATH. */
    private static final List<String> TOOLS = List.of("readlink", "stat", "cksum", "cut", "mkdir", "mktemp", "head",
            "ln", "rm", "mv");

    /** The source tree's bin/jfio: the tarball's launcher must pass the same JVM options per command. */
    private static final Path SOURCE_LAUNCHER = Path.of(System.getProperty("jfio.repo.root", ".."), "bin", "jfio");
    private static final Pattern SHIP_OPTS = Pattern.compile(
            "if \\[\\[ \\$\\{1:-\\} == ship \\]\\]; then\\s+java_opts\\+=\\(([^)]*)\\)");
    private static final Pattern COPY_OPTS = Pattern.compile("\\ncopy_opts=\\(([^)]*)\\)");

    @TempDir
    static Path root;
    static Path home;
    static Path tools;
    static Path link;

    record Result(int exit, String out, String err) {
    }

    @BeforeAll
    static void unpack() throws Exception {
        Path tarball = Path.of(TARBALL);
        assumeTrue(!TARBALL.isEmpty() && Files.isRegularFile(tarball),
                "no release tarball: build it with ./mvnw -B -Prelease -DskipTests package: tarball=" + TARBALL);
        Path unpacked = Files.createDirectories(root.resolve("opt"));
        Result tar = run(root, Map.of("PATH", "/usr/bin:/bin"),
                List.of("tar", "-xzf", tarball.toString(), "-C", unpacked.toString()));
        assertEquals(0, tar.exit(), tar.err());
        try (Stream<Path> s = Files.list(unpacked)) {
            List<Path> dirs = s.toList();
            assertEquals(1, dirs.size(), "the tarball has one top directory: " + dirs);
            home = dirs.get(0);
        }
        tools = Files.createDirectories(root.resolve("tools"));
        for (String t : TOOLS) {
            Path real = Stream.of("/usr/bin", "/bin").map(d -> Path.of(d, t)).filter(Files::isExecutable).findFirst()
                    .orElseThrow(() -> new IllegalStateException("tool not found: " + t));
            Files.createSymbolicLink(tools.resolve(t), real);
        }
        Path links = Files.createDirectories(root.resolve("links"));
        link = Files.createSymbolicLink(links.resolve("jfio"), home.resolve("bin/jfio"));
        Files.createDirectories(root.resolve("home"));
    }

    /** Runs the tarball's launcher through its symlink with nothing in the environment but PATH (tools only). */
    static Result jfio(Path cwd, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of(link.toString()));
        command.addAll(Arrays.asList(args));
        return run(cwd, Map.of("PATH", tools.toString(), "HOME", root.resolve("home").toString()), command);
    }

    static Result run(Path cwd, Map<String, String> env, List<String> command) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(command).directory(cwd.toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        Path out = Files.createTempFile(root, "out", ".txt");
        Path err = Files.createTempFile(root, "err", ".txt");
        pb.redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()));
        pb.redirectOutput(out.toFile());
        pb.redirectError(err.toFile());
        Process p = pb.start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("timed out after " + TIMEOUT_SECONDS + " s: " + command);
        }
        Result r = new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
        Files.delete(out);
        Files.delete(err);
        return r;
    }

    /** The options in the bash array that {@code pattern} finds in the source launcher, unquoted. */
    static List<String> sourceLauncherOptions(Pattern pattern) throws IOException {
        String text = Files.readString(SOURCE_LAUNCHER);
        Matcher m = pattern.matcher(text);
        assertTrue(m.find(), "pattern " + pattern + " not found in " + SOURCE_LAUNCHER);
        return Arrays.stream(m.group(1).trim().split("\\s+")).map(o -> o.replace("'", "")).toList();
    }

    /** What a directory sink holds: its segment files, in order. */
    static String dirSinkData(Path sink) throws IOException {
        StringBuilder sb = new StringBuilder();
        try (Stream<Path> s = Files.list(sink)) {
            for (Path seg : s.filter(f -> f.getFileName().toString().matches("ship-\\d+\\.log")).sorted().toList()) {
                sb.append(Files.readString(seg, StandardCharsets.UTF_8));
            }
        }
        return sb.toString();
    }

    @Test
    void theEnvironmentHasNoJava() {
        assertFalse(Files.exists(tools.resolve("java")));
        try (Stream<Path> s = Files.list(tools)) {
            assertTrue(s.allMatch(t -> TOOLS.contains(t.getFileName().toString())));
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    @Test
    void versionRunsOnTheBundledRuntimeThroughASymlinkFromAnotherDirectory() throws Exception {
        Result r = jfio(root.resolve("home"), "--version");
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().startsWith("jfio "), r.out());
        assertTrue(r.out().contains(home.resolve("runtime").toRealPath().toString()), r.out());
    }

    @Test
    void infoReportsTheSystemAndTheBundledRuntime() throws Exception {
        Result r = jfio(root, "info", root.toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.out().contains("java.home:") && r.out().contains(home.resolve("runtime").toRealPath().toString()),
                r.out());
        assertTrue(r.out().contains("kernel:") && r.out().contains("io_uring") && r.out().contains("O_DIRECT"),
                r.out());
    }

    @Test
    void shipOnceDeliversIntoADirSinkAndANonAsciiNameWorksWithoutALocale(@TempDir Path tmp) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("café.log"), "bonjour\nau revoir\n");
        Path out = tmp.resolve("out");
        Result r = jfio(tmp, "ship", "--once", "--from", logs + "/*.log", "--to", "dir:" + out, "--state",
                tmp.resolve("state").toString());
        assertEquals(0, r.exit(), r.err());
        assertTrue(r.err().contains("café.log"), r.err());
        assertEquals("bonjour\nau revoir\n", dirSinkData(out), r.err());
    }

    @Test
    void shipDeliversIntoARealKafkaBrokerWithLz4OnTheBundledRuntime(@TempDir Path tmp) throws Exception {
        // kafka-clients on the jlink runtime: its JDK modules (JMX metrics, SASL, ...) and lz4, the default codec,
        // with the fork's native library from the shaded jar.
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        List<String> lines = new ArrayList<>();
        for (int i = 0; i < 500; i++) lines.add("record " + i + " " + "x".repeat(i % 97));
        Files.writeString(logs.resolve("app.log"), String.join("\n", lines) + "\n");
        try (KafkaBroker broker = KafkaBroker.start(tmp.resolve("kafka"))) {
            broker.createTopic("dist", 1);
            Result r = jfio(tmp, "ship", "--once", "--from", logs + "/*.log", "--to",
                    "kafka:" + broker.bootstrap() + "/dist", "--state", tmp.resolve("state").toString());
            assertEquals(0, r.exit(), r.err());
            assertEquals(lines, consume(broker.bootstrap(), "dist", lines.size()), r.err());
        }
    }

    /** The values of a one-partition topic in offset order, up to its end offset, each without a final newline. */
    static List<String> consume(String bootstrap, String topic, int expected) {
        Map<String, Object> cfg = Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(cfg, new ByteArrayDeserializer(),
                new ByteArrayDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            c.assign(List.of(tp));
            c.seekToBeginning(List.of(tp));
            long end = c.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (c.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> rec : c.poll(Duration.ofMillis(500))) {
                    String v = new String(rec.value(), StandardCharsets.UTF_8);
                    values.add(v.endsWith("\n") ? v.substring(0, v.length() - 1) : v);
                }
            }
        }
        assertEquals(expected, values.size(), "records read");
        return values;
    }

    @Test
    void shipRunsWithTheMemoryBudgetOfTheSourceLauncherAndStopsCleanlyOnSigterm(@TempDir Path tmp) throws Exception {
        Path logs = Files.createDirectories(tmp.resolve("logs"));
        Files.writeString(logs.resolve("a.log"), "one\n");
        Path out = tmp.resolve("out");
        ProcessBuilder pb = new ProcessBuilder(link.toString(), "ship", "--from", logs + "/*.log", "--to",
                "dir:" + out, "--state", tmp.resolve("state").toString()).directory(tmp.toFile());
        pb.environment().clear();
        pb.environment().put("PATH", tools.toString());
        pb.redirectOutput(tmp.resolve("stdout").toFile());
        pb.redirectError(tmp.resolve("stderr").toFile());
        Process p = pb.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!(Files.isDirectory(out) && dirSinkData(out).equals("one\n"))) {
                assertTrue(p.isAlive(), () -> "ship exited: " + read(tmp.resolve("stderr")));
                assertTrue(System.nanoTime() < deadline, () -> "nothing shipped: " + read(tmp.resolve("stderr")));
                Thread.sleep(50);
            }
            // The launcher execs the JVM: the process is java itself, with the options on its command line.
            List<String> cmdline = Arrays.asList(Files.readString(Path.of("/proc/" + p.pid() + "/cmdline"))
                    .split("\0"));
            assertEquals(home.resolve("runtime/bin/java").toRealPath().toString(), cmdline.get(0));
            List<String> expected = new ArrayList<>(List.of("--enable-native-access=ALL-UNNAMED"));
            expected.addAll(sourceLauncherOptions(SHIP_OPTS));
            assertTrue(expected.contains("-Xmx32m"), "the source launcher's ship options: " + expected);
            for (String opt : expected) {
                assertTrue(cmdline.contains(opt), "missing " + opt + " in " + cmdline);
            }
            assertTrue(cmdline.indexOf("-jar") < cmdline.indexOf("ship"), cmdline.toString());
        } finally {
            p.destroy(); // SIGTERM: flush, checkpoints, exit 0
            assertTrue(p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS), "ship did not stop on SIGTERM");
        }
        assertEquals(0, p.exitValue(), read(tmp.resolve("stderr")));
        assertEquals("", read(tmp.resolve("stdout")), "nothing on stdout (the JVM's CompileCommand echo included)");
    }

    @Test
    void copyCopiesATreeAndKeepsItsAotCacheInTheUsersCacheDirectory(@TempDir Path tmp) throws Exception {
        Path src = Files.createDirectories(tmp.resolve("src/sub"));
        Files.writeString(src.resolve("f.txt"), "hello\n");
        Files.write(tmp.resolve("src/big"), new byte[3 << 20]);
        Result r = jfio(tmp, "copy", "-a", "--progress=none", tmp.resolve("src").toString(),
                tmp.resolve("dst").toString());
        assertEquals(0, r.exit(), r.err());
        assertEquals("hello\n", Files.readString(tmp.resolve("dst/sub/f.txt")));
        assertEquals(3 << 20, Files.size(tmp.resolve("dst/big")));
        Path cache = root.resolve("home/.cache/jfio");
        try (Stream<Path> s = Files.list(cache)) {
            assertEquals(1, s.filter(f -> f.getFileName().toString().matches("copy-\\d+\\.aot")).count(),
                    "one AOT cache in " + cache);
        }
        assertEquals("rwx------", PosixFilePermissions.toString(
                Files.getPosixFilePermissions(cache)));
        // The second copy uses the cache it trained (and does not train again).
        Result again = jfio(tmp, "copy", "-a", "--progress=none", tmp.resolve("src").toString(),
                tmp.resolve("dst2").toString());
        assertEquals(0, again.exit(), again.err());
        assertEquals("hello\n", Files.readString(tmp.resolve("dst2/sub/f.txt")));
    }

    @Test
    void benchDrawsItsChartsOnTheBundledRuntime(@TempDir Path tmp) throws Exception {
        // java.desktop (AWT, ImageIO) under XChart: the report's PNG is drawn headless, text included.
        Path report = tmp.resolve("report");
        Result r = jfio(tmp, "bench", "memcpy", "--no-fio", "--no-install", "--allow-tmpfs", "--dir", tmp.toString(),
                "--out", report.toString());
        assertEquals(0, r.exit(), r.err());
        byte[] png = Files.readAllBytes(report.resolve("memcpy.png"));
        assertTrue(png.length > 1000, "png bytes=" + png.length);
        assertEquals("\u0089PNG", new String(png, 0, 4, StandardCharsets.ISO_8859_1));
        assertTrue(Files.readString(report.resolve("report.html")).contains("<img"), "report.html shows the chart");
    }

    @Test
    void copyGetsTheSameJvmOptionsAsFromTheSourceLauncher(@TempDir Path tmp) throws Exception {
        // The JVM prints its command-line flags first; the copy's own output goes to stderr.
        Files.createDirectories(tmp.resolve("src"));
        Path bin = Files.createDirectories(tmp.resolve("bin"));
        Result r = run(tmp, Map.of("PATH", tools.toString(), "HOME", tmp.toString(),
                "JFIO_JAVA_OPTS", "-XX:+PrintCommandLineFlags"), List.of(link.toString(), "copy", "-a",
                "--progress=none", tmp.resolve("src").toString(), bin.resolve("dst").toString()));
        assertEquals(0, r.exit(), r.err());
        String flags = r.out().lines().findFirst().orElse("");
        List<String> expected = sourceLauncherOptions(COPY_OPTS);
        assertTrue(expected.contains("-XX:TieredStopAtLevel=1"), "the source launcher's copy options: " + expected);
        for (String opt : expected) {
            assertTrue(Arrays.asList(flags.split(" ")).contains(opt), "missing " + opt + " in " + flags);
        }
    }

    @Test
    void installerSetsUpTheCommandTheUserTheConfigAndTheUnit(@TempDir Path tmp) throws Exception {
        // jfio-install writes to /etc and /usr/local/bin and creates a user: it runs in a private mount namespace
        // over a copy of /etc and an empty /usr/local/bin, so the machine running the test is left as it was.
        Path unshare = Path.of("/usr/bin/unshare");
        assumeTrue("root".equals(System.getProperty("user.name")) && Files.isExecutable(unshare),
                "jfio-install needs root and unshare(1) for a private /etc: not tested here");
        Result probe = run(tmp, Map.of("PATH", "/usr/bin:/bin"), List.of(unshare.toString(), "-m", "true"));
        assumeTrue(probe.exit() == 0, "no mount namespace here (unshare -m): jfio-install not tested: " + probe.err());
        Result before = run(tmp, Map.of("PATH", "/usr/bin:/bin"), List.of("getent", "passwd", "jfio-ship"));
        // The service user must reach the unpacked tarball, as under /opt (JUnit makes its directories 0700).
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x"));
        Files.setPosixFilePermissions(root.resolve("opt"), PosixFilePermissions.fromString("rwxr-xr-x"));
        Path script = tmp.resolve("install-test.sh");
        Files.writeString(script, String.join("\n",
                "set -eu",
                "cp -a /etc \"$T/etc\" && mount --bind \"$T/etc\" /etc",
                "mkdir -p \"$T/bin\" /usr/local/bin && mount --bind \"$T/bin\" /usr/local/bin",
                "\"$HOME_DIR/bin/jfio-install\"",
                "\"$HOME_DIR/bin/jfio-install\" >\"$T/second.txt\"",
                "echo \"link=$(readlink /usr/local/bin/jfio)\"",
                "echo \"user=$(getent passwd jfio-ship | cut -d: -f1,6,7)\"",
                "echo \"config=$(stat -c '%U:%G:%a' /etc/jfio/ship.yaml)\"",
                "echo \"unit=$(stat -c '%a' /etc/systemd/system/jfio-ship.service)\"",
                "cmp /etc/jfio/ship.yaml \"$HOME_DIR/share/ship.yaml\"",
                "cmp /etc/systemd/system/jfio-ship.service \"$HOME_DIR/share/jfio-ship.service\"",
                "grep -c 'kept the existing /etc/jfio/ship.yaml' \"$T/second.txt\"",
                "setpriv --reuid=jfio-ship --regid=jfio-ship --clear-groups env -i PATH=/usr/bin:/bin "
                        + "/usr/local/bin/jfio --version",
                "if [ -x /usr/bin/systemd-analyze ]; then systemd-analyze verify "
                        + "/etc/systemd/system/jfio-ship.service && echo verified; fi",
                ""));
        Result r = run(tmp, Map.of("PATH", "/usr/sbin:/usr/bin:/sbin:/bin", "T", tmp.toString(), "HOME_DIR",
                home.toString()), List.of(unshare.toString(), "-m", "sh", script.toString()));
        assertEquals(0, r.exit(), r.out() + r.err());
        assertTrue(r.out().contains("link=" + home.resolve("bin/jfio")), r.out());
        assertTrue(r.out().contains("user=jfio-ship:/nonexistent:/usr/sbin/nologin"), r.out());
        assertTrue(r.out().contains("config=root:jfio-ship:640"), r.out());
        assertTrue(r.out().contains("unit=644"), r.out());
        assertTrue(r.out().contains("JDK ") && r.out().contains(home.resolve("runtime").toString()), r.out());
        if (Files.isExecutable(Path.of("/usr/bin/systemd-analyze"))) {
            assertTrue(r.out().contains("verified"), r.out() + r.err());
        }
        // The namespace is gone with the process: the machine's users are as they were.
        Result after = run(tmp, Map.of("PATH", "/usr/bin:/bin"), List.of("getent", "passwd", "jfio-ship"));
        assertEquals(before, after);
    }

    @Test
    void theRuntimeHasEveryJdkModuleTheJarUses() throws Exception {
        // jdeps of the JDK running the build, over the jar that is in the tarball.
        Path jdeps = Path.of(System.getProperty("java.home"), "bin", "jdeps");
        Path jar = home.resolve("lib/jfio.jar");
        Result deps = run(root, Map.of("PATH", "/usr/bin:/bin"), List.of(jdeps.toString(), "--ignore-missing-deps",
                "--multi-release", String.valueOf(Runtime.version().feature()), "--print-module-deps",
                jar.toString()));
        assertEquals(0, deps.exit(), deps.err());
        Set<String> needed = new TreeSet<>(Arrays.asList(deps.out().strip().split(",")));
        Result list = run(root, Map.of("PATH", "/usr/bin:/bin"),
                List.of(home.resolve("runtime/bin/java").toString(), "--list-modules"));
        assertEquals(0, list.exit(), list.err());
        Set<String> present = list.out().lines().map(l -> l.replaceAll("@.*", "")).collect(Collectors.toSet());
        needed.removeAll(present);
        assertEquals(Set.of(), needed, "JDK modules the jar uses that the runtime lacks (add them to "
                + "jfio.runtime.modules in jfio-dist/pom.xml)");
    }

    @Test
    void theSampleConfigShipsAndTheSystemdUnitVerifies(@TempDir Path tmp) throws Exception {
        // The sample as installed, with its system paths moved under tmp.
        Path logs = Files.createDirectories(tmp.resolve("log"));
        for (String f : List.of("syslog", "auth.log", "kern.log")) Files.writeString(logs.resolve(f), f + "\n");
        String sample = Files.readString(home.resolve("share/ship.yaml"));
        assertTrue(sample.contains("/var/lib/jfio-ship/spool") && sample.contains("/var/log/syslog"), sample);
        Path config = tmp.resolve("ship.yaml");
        Files.writeString(config, sample.replace("/var/lib/jfio-ship", tmp.resolve("lib").toString())
                .replace("/var/log", logs.toString()));
        Result r = jfio(tmp, "ship", "--config", config.toString(), "--state", tmp.resolve("lib/state").toString(),
                "--once");
        assertEquals(0, r.exit(), r.err());
        assertEquals(Set.of("syslog", "auth.log", "kern.log"),
                Set.copyOf(dirSinkData(tmp.resolve("lib/spool")).lines().toList()));

        String unit = Files.readString(home.resolve("share/jfio-ship.service"));
        assertTrue(unit.contains("ExecStart=/usr/local/bin/jfio ship --config /etc/jfio/ship.yaml"), unit);
        Path analyze = Path.of("/usr/bin/systemd-analyze");
        assumeTrue(Files.isExecutable(analyze), "systemd-analyze is not installed: the unit was not verified");
        Path copy = tmp.resolve("jfio-ship.service");
        Files.writeString(copy, unit.replace("/usr/local/bin/jfio", link.toString()));
        Result verify = run(tmp, Map.of("PATH", "/usr/bin:/bin"), List.of(analyze.toString(), "verify",
                copy.toString()));
        assertEquals(0, verify.exit(), verify.out() + verify.err());
        assertEquals("", verify.err().strip(), verify.err());
    }

    private static String read(Path f) {
        try {
            return Files.readString(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + f + ": " + e + ")";
        }
    }
}
