package io.jfio.ship.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The sink package depends on none of the sink kinds that plug into it: its compiled classes name no class of their
 * packages (checked in the constant pools, so descriptors and signatures count too), and each kind is found
 * through the registry.
 *
 * <p>The constant pool is read here by hand (JVMS 4.4) because the project compiles for Java 22, where the
 * {@code java.lang.classfile} API is still a preview.
 */
class SinkPackageDependenciesTest {
    private static final String SERVICES = "META-INF/services/" + SinkFactory.class.getName();

    @Test
    void sinkPackageNamesNoClassOfAPackageThatPlugsIntoIt() throws Exception {
        Set<String> plugged = new TreeSet<>();
        for (String provider : providers()) {
            String pkg = provider.substring(0, provider.lastIndexOf('.'));
            if (!pkg.equals(Sink.class.getPackageName())) plugged.add(pkg.replace('.', '/') + "/");
        }
        assertTrue(plugged.containsAll(Set.of("io/jfio/ship/tcp/", "io/jfio/ship/kafka/")), plugged.toString());

        List<String> found = new ArrayList<>();
        List<Path> classes = sinkClasses();
        assertTrue(classes.size() > 5, "compiled sink classes: " + classes);
        for (Path c : classes) {
            for (String text : constantPoolStrings(Files.readAllBytes(c))) {
                for (String pkg : plugged) {
                    if (text.contains(pkg)) found.add(c.getFileName() + " -> " + text);
                }
            }
        }
        assertEquals(List.of(), found, "io.jfio.ship.sink must reach its sink kinds through SinkFactory only");
    }

    @Test
    void everyListedKindIsInTheRegistryUnderItsScheme() throws Exception {
        for (String provider : providers()) {
            SinkFactory f = (SinkFactory) Class.forName(provider).getDeclaredConstructor().newInstance();
            assertEquals(provider, Sinks.factory(f.scheme()).getClass().getName());
            assertTrue(Sinks.forms().contains(f.form()), Sinks.forms());
        }
        for (String scheme : List.of("dir", "tcp", "kafka", "stdout")) {
            assertTrue(Sinks.factory(scheme) != null, scheme);
        }
    }

    /** Every CONSTANT_Utf8 of a class file: class names, descriptors, signatures and string literals. */
    private static List<String> constantPoolStrings(byte[] classFile) throws IOException {
        DataInputStream in = new DataInputStream(new ByteArrayInputStream(classFile));
        assertEquals(0xCAFEBABE, in.readInt(), "a class file");
        in.readUnsignedShort(); // minor version
        in.readUnsignedShort(); // major version
        int count = in.readUnsignedShort();
        List<String> strings = new ArrayList<>();
        for (int i = 1; i < count; i++) {
            int tag = in.readUnsignedByte();
            switch (tag) {
                case 1 -> strings.add(in.readUTF()); // Utf8: u2 length, modified UTF-8, as readUTF reads it
                case 7, 8, 16, 19, 20 -> in.skipNBytes(2); // Class, String, MethodType, Module, Package
                case 15 -> in.skipNBytes(3); // MethodHandle
                case 3, 4, 9, 10, 11, 12, 17, 18 -> in.skipNBytes(4); // Integer, Float, refs, NameAndType, dynamic
                case 5, 6 -> {
                    in.skipNBytes(8); // Long, Double take two slots
                    i++;
                }
                default -> throw new IOException("unknown constant pool tag " + tag + " at entry " + i);
            }
        }
        return strings;
    }

    private static List<String> providers() throws IOException {
        try (InputStream in = SinkPackageDependenciesTest.class.getClassLoader().getResourceAsStream(SERVICES)) {
            assertTrue(in != null, SERVICES + " on the class path");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().map(String::strip)
                    .filter(l -> !l.isEmpty() && !l.startsWith("#")).toList();
        }
    }

    /** The class files of io.jfio.ship.sink as compiled for main (not the tests). */
    private static List<Path> sinkClasses() throws IOException, URISyntaxException {
        Path root = Path.of(Sink.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path dir = root.resolve(Sink.class.getPackageName().replace('.', '/'));
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".class")).sorted().toList();
        }
    }
}
