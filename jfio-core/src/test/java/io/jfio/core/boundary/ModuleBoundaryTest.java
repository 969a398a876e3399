package io.jfio.core.boundary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.file.FileStat;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The public API boundary of jfio-core, read from its compiled module descriptor: exactly the API packages are
 * exported to everyone, and the internals only to jfio's own modules. A new exported package, or an internal one
 * exported to all, fails here and has to be decided on (and written into docs/ARCHITECTURE.md).
 *
 * <p>Thread-confined to JUnit's test thread.
 */
class ModuleBoundaryTest {
    private static final Set<String> API = Set.of(
            "io.jfio.core.copy", "io.jfio.core.engine", "io.jfio.core.file", "io.jfio.core.units",
            "io.jfio.core.watch");
    private static final Set<String> JFIO_MODULES = Set.of("io.jfio.ship", "io.jfio.bench", "io.jfio.cli");

    private static ModuleDescriptor core;

    @BeforeAll
    static void readDescriptor() throws IOException, URISyntaxException {
        // The directory or jar that FileStat was loaded from is jfio-core's main output, module-info.class included.
        Path classes = Path.of(FileStat.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path info = classes.resolve("module-info.class");
        assertTrue(Files.isRegularFile(info), "jfio-core has no module descriptor at " + info);
        try (InputStream in = Files.newInputStream(info)) {
            core = ModuleDescriptor.read(in);
        }
    }

    @Test
    void isTheCoreModule() {
        assertEquals("io.jfio.core", core.name());
        assertFalse(core.isOpen(), "an open module would give reflective access to every internal");
        assertTrue(core.opens().isEmpty(), "opens " + core.opens());
    }

    @Test
    void exportsExactlyTheApiPackagesToEveryone() {
        Set<String> unqualified = new TreeSet<>();
        for (ModuleDescriptor.Exports e : core.exports()) {
            if (!e.isQualified()) {
                unqualified.add(e.source());
            }
        }
        assertEquals(new TreeSet<>(API), unqualified);
    }

    @Test
    void exportsInternalsOnlyToJfioModules() {
        Map<String, Set<String>> qualified = new TreeMap<>();
        for (ModuleDescriptor.Exports e : core.exports()) {
            if (e.isQualified()) {
                qualified.put(e.source(), new TreeSet<>(e.targets()));
            }
        }
        assertEquals(Set.of("io.jfio.core.sys", "io.jfio.core.uring"), qualified.keySet());
        qualified.forEach((pkg, targets) -> assertTrue(JFIO_MODULES.containsAll(targets),
                pkg + " is exported to " + targets + ", not only to jfio's modules " + JFIO_MODULES));
    }

    @Test
    void hasNoDependenciesButTheJdk() {
        for (ModuleDescriptor.Requires r : core.requires()) {
            assertTrue(r.name().startsWith("java."), "jfio-core requires " + r.name());
        }
    }
}
