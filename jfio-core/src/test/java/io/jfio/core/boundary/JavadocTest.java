package io.jfio.core.boundary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.DocumentationTool;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The API's javadoc is complete: the JDK's javadoc tool, with every doclint group on, documents the exported packages
 * without a warning or an error (each parameter, return value and thrown exception is described, links resolve,
 * the HTML is valid). The same check as {@code ./mvnw -pl jfio-core javadoc:javadoc}, without Maven or a network.
 *
 * <p>Thread-confined to JUnit's test thread.
 */
class JavadocTest {
    /** Surefire runs tests in the module's directory. */
    private static final Path SOURCES = Path.of("src/main/java");

    @Test
    void exportedPackagesDocumentWithoutWarnings(@TempDir Path out) throws IOException {
        DocumentationTool tool = ToolProvider.getSystemDocumentationTool();
        assertNotNull(tool, "no javadoc tool in this JDK");
        List<Path> files = new ArrayList<>();
        for (String pkg : ModuleBoundaryTest.API) {
            Path dir = SOURCES.resolve(pkg.replace('.', '/'));
            assertTrue(Files.isDirectory(dir), "no sources at " + dir.toAbsolutePath());
            try (Stream<Path> s = Files.list(dir)) {
                s.filter(f -> f.toString().endsWith(".java")).forEach(files::add);
            }
        }
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        StringWriter log = new StringWriter();
        try (StandardJavaFileManager fm = tool.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            Iterable<? extends JavaFileObject> units = fm.getJavaFileObjectsFromPaths(files);
            // The internal packages are on the source path so that references to them resolve; they are not
            // documented, so nothing in them is checked.
            List<String> options = List.of("-Xdoclint:all", "-Xmaxwarns", "100000", "-Xmaxerrs", "100000", "-quiet",
                    "-sourcepath", SOURCES.toString(), "-d", out.toString());
            Boolean ok = tool.getTask(log, fm, diagnostics, null, options, units).call();
            List<String> problems = new ArrayList<>();
            for (Diagnostic<? extends JavaFileObject> d : diagnostics.getDiagnostics()) {
                if (d.getKind() != Diagnostic.Kind.NOTE && d.getKind() != Diagnostic.Kind.OTHER) {
                    String where = d.getSource() == null ? ""
                            : d.getSource().getName() + ":" + d.getLineNumber() + ": ";
                    problems.add(where + d.getKind() + ": " + d.getMessage(Locale.ROOT));
                }
            }
            assertEquals(List.of(), problems, problems.size() + " javadoc problems; log:\n" + log);
            assertTrue(ok, "javadoc failed:\n" + log);
        }
    }
}
