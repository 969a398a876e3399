package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jfio.bench.system.Report;
import io.jfio.bench.system.SysFiles;
import io.jfio.bench.system.UringProbe;
import io.jfio.core.engine.Engines;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import org.junit.jupiter.api.io.TempDir;

/** The jfio command line as main runs it, through {@link Cli#run}, with output captured. */
class CliTest {
    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY);

    /** The keys every {@code info --json} report has, section by section, in order. */
    private static final Map<String, List<String>> KEYS = Map.of(
            "jfio", List.of("version"),
            "system", List.of("kernel_release", "arch", "cpu_model", "cpu_count", "memory_total_bytes",
                    "memory_available_bytes", "page_size"),
            "jdk", List.of("version", "vendor", "vm", "java_home"),
            "io_uring", List.of("available", "setup_flags", "features", "rings", "sq_entries", "cq_entries",
                    "registered_ring_fd", "supported_ops", "unavailable_reason", "unavailable_hint",
                    "kernel_io_uring_disabled"),
            "engine", List.of("configured", "selected", "reason", "error"),
            "path", List.of("path", "real_path", "type", "file_system", "mount_point", "mount_source",
                    "mount_options", "device", "device_name", "queue_device", "rotational", "logical_block_size",
                    "scheduler", "read_ahead_kb", "dio_mem_align", "dio_offset_align", "o_direct_works",
                    "o_direct_errno", "o_direct_detail"));

    /** One run's exit code and output. */
    record Run(int exit, String out, String err) {
    }

    static Run run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int exit = Cli.run(new PrintWriter(out), new PrintWriter(err), args);
        return new Run(exit, out.toString(), err.toString());
    }

    /** Runs with {@code -Djfio.engine} set to {@code value} (null: unset), restoring it afterwards. */
    static Run runWithEngine(String value, String... args) {
        String old = System.getProperty(Engines.ENGINE_PROP);
        try {
            if (value == null) {
                System.clearProperty(Engines.ENGINE_PROP);
            } else {
                System.setProperty(Engines.ENGINE_PROP, value);
            }
            return run(args);
        } finally {
            if (old == null) {
                System.clearProperty(Engines.ENGINE_PROP);
            } else {
                System.setProperty(Engines.ENGINE_PROP, old);
            }
        }
    }

    @Test
    void infoPrintsSystemIoUringEngineAndPathSections(@TempDir Path dir) throws Exception {
        Run r = runWithEngine(null, "info", dir.toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertEquals("", r.err());
        for (String heading : List.of("jfio", "System", "JDK", "io_uring", "Engine", "Path")) {
            assertTrue(r.out().lines().anyMatch(heading::equals), "missing heading " + heading + ":\n" + r.out());
        }
        String kernel = SysFiles.read(Path.of("/proc/sys/kernel/osrelease")).orElseThrow();
        assertTrue(r.out().contains("kernel:") && r.out().contains(kernel), r.out());
        assertTrue(r.out().contains("works:"), r.out());
        assertTrue(r.out().contains("selected:"), r.out());
        assertTrue(r.out().contains("real path:") && r.out().contains(dir.toRealPath().toString()), r.out());
        assertTrue(r.out().contains("O_DIRECT works:"), r.out());
        for (String line : r.out().lines().toList()) {
            // Values wrap at spaces; only a path, which has none, may run past the width.
            if (line.contains(dir.getFileName().toString())) continue;
            assertTrue(line.length() <= Report.WIDTH, "line too long: " + line);
        }
    }

    @Test
    void infoJsonIsOneObjectWithStableKeys(@TempDir Path dir) throws Exception {
        Run r = runWithEngine(null, "info", "--json", dir.toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        JsonNode root = JSON.readTree(r.out());
        assertTrue(root.isObject());
        assertEquals(KEYS.keySet(), fieldNames(root).stream().collect(java.util.stream.Collectors.toSet()));
        for (Map.Entry<String, List<String>> e : KEYS.entrySet()) {
            assertEquals(e.getValue(), fieldNames(root.get(e.getKey())), "keys of section " + e.getKey());
        }
        assertEquals(dir.toRealPath().toString(), root.get("path").get("real_path").asText());
        assertEquals("directory", root.get("path").get("type").asText());
        assertTrue(root.get("system").get("page_size").isInt());
        assertTrue(root.get("io_uring").get("available").isBoolean());
        boolean uring = root.get("io_uring").get("available").asBoolean();
        assertEquals(uring, root.get("io_uring").get("supported_ops").isArray());
        assertEquals(uring ? "io_uring" : "threads", root.get("engine").get("selected").asText());
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(0, left.count(), "the O_DIRECT test must leave no file behind");
        }
    }

    @Test
    void infoOnAnExistingFileOnlyReadsIt(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("data");
        byte[] content = new byte[10_000];
        java.util.Arrays.fill(content, (byte) 42);
        Files.write(f, content);
        long mtime = Files.getLastModifiedTime(f).toMillis();
        Run r = runWithEngine(null, "info", "--json", f.toString());
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        JsonNode path = JSON.readTree(r.out()).get("path");
        assertEquals("regular file", path.get("type").asText());
        assertTrue(path.get("o_direct_detail").asText().contains("existing file") || path.get("o_direct_works")
                .isBoolean() && !path.get("o_direct_works").asBoolean(), path.toString());
        assertEquals(mtime, Files.getLastModifiedTime(f).toMillis());
        assertTrue(java.util.Arrays.equals(content, Files.readAllBytes(f)));
    }

    @Test
    void infoWhereNoFileCanBeCreatedSaysODirectWasNotTested() throws Exception {
        Run r = runWithEngine(null, "info", "--json", "/proc");
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        JsonNode path = JSON.readTree(r.out()).get("path");
        assertEquals("proc", path.get("file_system").asText());
        assertTrue(path.get("o_direct_works").isNull(), path.toString());
        assertTrue(path.get("o_direct_detail").asText().startsWith("not tested: cannot create a file"),
                path.toString());
        assertTrue(path.get("rotational").isNull() && path.get("scheduler").isNull(), path.toString());
    }

    @Test
    void infoOnAMissingPathExitsWithUsageAndNamesThePath() {
        Run r = runWithEngine(null, "info", "/does/not/exist");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertEquals("", r.out());
        assertEquals("jfio info: no such path: path=/does/not/exist", r.err().strip());
    }

    @Test
    void unknownOptionExitsWithUsage() {
        Run r = run("info", "--no-such-option");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("Unknown option: '--no-such-option'"), r.err());
        assertTrue(r.err().contains("jfio info --help"), r.err());
        assertEquals("", r.out());
    }

    @Test
    void unknownCommandExitsWithUsageAndSuggestsOne() {
        Run r = run("inf");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("info"), r.err());
    }

    @Test
    void noCommandExitsWithUsageAndShowsTheCommands() {
        Run r = run();
        assertEquals(ExitCodes.USAGE, r.exit());
        assertTrue(r.err().contains("missing command") && r.err().contains("info"), r.err());
    }

    @Test
    void invalidEnginePropertyExitsWithUsage() {
        Run r = runWithEngine("bogus", "info");
        assertEquals(ExitCodes.USAGE, r.exit());
        assertEquals("", r.out());
        assertTrue(r.err().contains("invalid -Djfio.engine=bogus") && r.err().contains("auto, uring or threads"),
                r.err());
    }

    @Test
    void invalidRingCountExitsWithUsage() {
        String old = System.getProperty(io.jfio.core.engine.UringEngine.RINGS_PROP);
        System.setProperty(io.jfio.core.engine.UringEngine.RINGS_PROP, "lots");
        try {
            Run r = runWithEngine(null, "info");
            assertEquals(ExitCodes.USAGE, r.exit());
            assertEquals("", r.out());
            assertTrue(r.err().contains("invalid -Djfio.uring.rings=lots"), r.err());
        } finally {
            if (old == null) {
                System.clearProperty(io.jfio.core.engine.UringEngine.RINGS_PROP);
            } else {
                System.setProperty(io.jfio.core.engine.UringEngine.RINGS_PROP, old);
            }
        }
    }

    @Test
    void helpWorksEvenWithAnInvalidEngineProperty() {
        Run r = runWithEngine("bogus", "info", "--help");
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        assertTrue(r.out().contains("Usage: jfio info"), r.out());
    }

    @Test
    void forcedThreadsEngineIsReported() throws Exception {
        Run r = runWithEngine("threads", "info", "--json");
        assertEquals(ExitCodes.OK, r.exit(), r.err());
        JsonNode engine = JSON.readTree(r.out()).get("engine");
        assertEquals("threads", engine.get("configured").asText());
        assertEquals("threads", engine.get("selected").asText());
        assertTrue(engine.get("reason").asText().contains("-Djfio.engine=threads"));
    }

    @Test
    void forcedUringSucceedsWhereIoUringWorksAndExitsWithEnvironmentWhereNot() throws Exception {
        boolean works = UringProbe.run().works();
        Run r = runWithEngine("uring", "info", "--json");
        JsonNode engine = JSON.readTree(r.out()).get("engine");
        if (works) {
            assertEquals(ExitCodes.OK, r.exit(), r.err());
            assertEquals("io_uring", engine.get("selected").asText());
        } else {
            assertEquals(ExitCodes.ENVIRONMENT, r.exit());
            assertTrue(r.err().contains("io_uring forced by -Djfio.engine=uring but unavailable"), r.err());
            assertTrue(engine.get("selected").isNull());
        }
    }

    @Test
    void versionPrintsTheProjectVersion() {
        Run r = run("--version");
        assertEquals(ExitCodes.OK, r.exit());
        assertTrue(r.out().matches("(?s)jfio \\d+\\.\\d+\\.\\d+\\S*\n.*"), r.out());
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
    /**
     * Every text of every command's help goes through String.format in picocli: a '%' that does not start a format
     * ("10%" rather than "10%%") prints a warning to the user's terminal and the text unformatted (its "%n" as they
     * are). Each description, header and footer of the whole tree, as written in the annotations, must format.
     */
    @Test
    void everyHelpTextOfEveryCommandFormats() {
        CommandLine root = Cli.commandLine(new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        List<String> bad = new ArrayList<>();
        List<CommandLine> todo = new ArrayList<>(List.of(root));
        int texts = 0;
        while (!todo.isEmpty()) {
            CommandLine c = todo.remove(todo.size() - 1);
            todo.addAll(c.getSubcommands().values());
            List<String> lines = new ArrayList<>();
            for (Class<?> k = c.getCommandSpec().userObject().getClass(); k != Object.class; k = k.getSuperclass()) {
                CommandLine.Command cmd = k.getAnnotation(CommandLine.Command.class);
                if (cmd != null) {
                    lines.addAll(List.of(cmd.description()));
                    lines.addAll(List.of(cmd.header()));
                    lines.addAll(List.of(cmd.footer()));
                }
                List<java.lang.reflect.AccessibleObject> members = new ArrayList<>(List.of(k.getDeclaredFields()));
                members.addAll(List.of(k.getDeclaredMethods()));
                for (java.lang.reflect.AccessibleObject m : members) {
                    CommandLine.Option o = m.getAnnotation(CommandLine.Option.class);
                    if (o != null) lines.addAll(List.of(o.description()));
                    CommandLine.Parameters p = m.getAnnotation(CommandLine.Parameters.class);
                    if (p != null) lines.addAll(List.of(p.description()));
                }
            }
            for (String line : lines) {
                texts++;
                try {
                    String.format(line);
                } catch (java.util.IllegalFormatException e) {
                    bad.add(c.getCommandSpec().qualifiedName() + ": " + line + " (" + e + ")");
                }
            }
        }
        assertTrue(texts > 100, "the whole tree was walked: " + texts + " texts");
        assertEquals(List.of(), bad);
    }
}
