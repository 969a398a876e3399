package io.jfio.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import picocli.CommandLine.Command;

/**
 * jfio-cli holds the commands and nothing else: every class of {@code io.jfio.cli}, as built, is one of the kinds
 * below, and there are no subpackages. Benchmarks, probes, report writers and JSON belong to jfio-bench (or core,
 * ship), where the commands call them.
 *
 * <p>The kinds allowed:
 * <ul>
 *   <li>a picocli command: annotated {@link Command};
 *   <li>a picocli plug-in: implements one of picocli's interfaces (version provider, type converter, parameter
 *       consumer, exception handler, default value provider);
 *   <li>a printer of a command's output to the terminal: its name ends in {@code Printer};
 *   <li>the entry point and its wiring, by name: {@link #WIRING}.
 * </ul>
 */
class CliLayoutTest {
    /**
     * The entry point, the exit codes and the error they travel in, the signal handling of the commands, the
     * reading of size and duration options and of {@code --preserve} lists into usage errors, the arguments' exact
     * bytes and the quoting of names in what the commands print.
     */
    private static final Set<String> WIRING = Set.of("Main", "ExitCodes", "CliException", "Signals", "UnitOptions",
            "PreserveList", "RawArgs", "Quote");

    @Test
    void everyClassOfTheCliIsACommandOrItsWiring() throws Exception {
        List<String> names = cliClassFiles();
        assertTrue(names.contains("io/jfio/cli/Main.class"), "the scan found the CLI's classes: " + names);
        List<String> misplaced = new ArrayList<>();
        TreeMap<String, String> kinds = new TreeMap<>();
        for (String file : names) {
            String binary = file.substring(0, file.length() - ".class".length()).replace('/', '.');
            if (!binary.startsWith("io.jfio.cli.") || binary.indexOf('.', "io.jfio.cli.".length()) >= 0) {
                misplaced.add(binary + " (in a subpackage of io.jfio.cli)");
                continue;
            }
            if (binary.contains("$")) continue; // nested in a class checked on its own
            Class<?> c = Class.forName(binary, false, CliLayoutTest.class.getClassLoader());
            String kind = kind(c);
            if (kind == null) {
                misplaced.add(binary + " (not a command, picocli plug-in, printer or wiring)");
            } else {
                kinds.put(c.getSimpleName(), kind);
            }
        }
        assertEquals(List.of(), misplaced, "classes that belong in jfio-bench, jfio-ship or jfio-core; allowed: "
                + kinds);
    }

    private static String kind(Class<?> c) {
        if (c.isAnnotationPresent(Command.class)) return "command";
        boolean plugin = Arrays.stream(c.getInterfaces()).anyMatch(i -> i.getName().startsWith("picocli."));
        if (plugin) return "picocli plug-in";
        if (c.getSimpleName().endsWith("Printer")) return "printer";
        if (WIRING.contains(c.getSimpleName())) return "wiring";
        return null;
    }

    /** The class files under io/jfio/cli of the directory or jar that Main was loaded from. */
    private static List<String> cliClassFiles() throws IOException, URISyntaxException {
        Path where = Path.of(Main.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> names = new ArrayList<>();
        if (Files.isDirectory(where)) {
            Path root = where.resolve("io/jfio/cli");
            try (Stream<Path> s = Files.walk(root)) {
                s.filter(p -> p.toString().endsWith(".class"))
                        .forEach(p -> names.add(where.relativize(p).toString().replace('\\', '/')));
            }
        } else {
            try (JarFile jar = new JarFile(where.toFile())) {
                jar.stream().map(JarEntry::getName)
                        .filter(n -> n.startsWith("io/jfio/cli/") && n.endsWith(".class")).forEach(names::add);
            }
        }
        return names;
    }
}
