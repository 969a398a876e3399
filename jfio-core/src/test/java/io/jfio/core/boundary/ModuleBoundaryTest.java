package io.jfio.core.boundary;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.file.FileStat;
import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The public API boundary of jfio-core, read from its compiled module descriptor and classes: exactly the API
 * packages are exported to everyone, the internals only to jfio's own modules, and no public or protected signature
 * of the API names an internal type. A new exported package, an internal one exported to all, or an API method that
 * exposes an internal type fails here and has to be decided on (and written into docs/ARCHITECTURE.md).
 *
 * <p>Thread-confined to JUnit's test thread.
 */
class ModuleBoundaryTest {
    static final Set<String> API = Set.of(
            "io.jfio.core.copy", "io.jfio.core.engine", "io.jfio.core.file", "io.jfio.core.units",
            "io.jfio.core.watch");
    private static final Set<String> JFIO_MODULES = Set.of("io.jfio.ship", "io.jfio.bench", "io.jfio.cli");

    private static ModuleDescriptor core;
    private static Path classes;

    @BeforeAll
    static void readDescriptor() throws IOException, URISyntaxException {
        // The directory or jar that FileStat was loaded from is jfio-core's main output, module-info.class included.
        classes = Path.of(FileStat.class.getProtectionDomain().getCodeSource().getLocation().toURI());
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

    @Test
    void apiSignaturesNameNoInternalType() throws IOException {
        List<String> leaks = new ArrayList<>();
        for (String pkg : new TreeSet<>(API)) {
            for (Class<?> type : classesOf(pkg)) {
                if (visibleOutside(type)) {
                    leaks.addAll(leaksOf(type));
                }
            }
        }
        assertEquals(List.of(), leaks, "public API that names a type of a package not exported to everyone");
    }

    @Test
    void ioUringPackageShowsOnlyItsConstants() throws IOException {
        // The ring itself (Ring, SubmissionQueue, CompletionQueue) is the engine's business: package-private there.
        Set<String> visible = new TreeSet<>();
        for (Class<?> type : classesOf("io.jfio.core.uring")) {
            if (visibleOutside(type)) {
                visible.add(type.getName());
            }
        }
        assertEquals(Set.of("io.jfio.core.uring.UringConstants"), visible);
    }

    /** Every class compiled into {@code pkg} (nested ones included), loaded without initialising it. */
    private static List<Class<?>> classesOf(String pkg) throws IOException {
        Path dir = classes.resolve(pkg.replace('.', '/'));
        assertTrue(Files.isDirectory(dir), "no compiled package at " + dir);
        List<Class<?>> types = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.sorted().toList()) {
                String file = f.getFileName().toString();
                if (file.endsWith(".class") && !file.equals("package-info.class")) {
                    String name = pkg + "." + file.substring(0, file.length() - ".class".length());
                    try {
                        types.add(Class.forName(name, false, ModuleBoundaryTest.class.getClassLoader()));
                    } catch (ClassNotFoundException e) {
                        throw new AssertionError("cannot load " + name, e);
                    }
                }
            }
        }
        return types;
    }

    /** Whether code outside the package can name {@code type}: it and every class enclosing it are accessible. */
    private static boolean visibleOutside(Class<?> type) {
        if (type.isAnonymousClass() || type.isLocalClass() || type.isSynthetic()) {
            return false;
        }
        for (Class<?> c = type; c != null; c = c.getDeclaringClass()) {
            int m = c.getModifiers();
            boolean accessible = Modifier.isPublic(m) || c.getDeclaringClass() != null && Modifier.isProtected(m);
            if (!accessible) {
                return false;
            }
        }
        return true;
    }

    private static boolean exposed(Member m) {
        return !m.isSynthetic() && (Modifier.isPublic(m.getModifiers()) || Modifier.isProtected(m.getModifiers()));
    }

    /** The signatures of {@code type} and its exposed members that name internal types, one line each. */
    private static List<String> leaksOf(Class<?> type) {
        List<String> leaks = new ArrayList<>();
        String name = type.getName();
        check(leaks, name + " extends", type.getGenericSuperclass());
        for (Type t : type.getGenericInterfaces()) {
            check(leaks, name + " implements", t);
        }
        for (TypeVariable<?> v : type.getTypeParameters()) {
            check(leaks, name + " type parameter " + v, v);
        }
        for (Field f : type.getDeclaredFields()) {
            if (exposed(f)) {
                check(leaks, name + "." + f.getName(), f.getGenericType());
            }
        }
        for (Method m : type.getDeclaredMethods()) {
            if (exposed(m) && !m.isBridge()) {
                check(leaks, name + "." + m.getName() + " returns", m.getGenericReturnType());
                checkExecutable(leaks, name + "." + m.getName(), m);
            }
        }
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (exposed(c)) {
                checkExecutable(leaks, name + " constructor", c);
            }
        }
        return leaks;
    }

    private static void checkExecutable(List<String> leaks, String where, Executable e) {
        for (Type t : e.getGenericParameterTypes()) {
            check(leaks, where + " parameter", t);
        }
        for (Type t : e.getGenericExceptionTypes()) {
            check(leaks, where + " throws", t);
        }
        for (TypeVariable<?> v : e.getTypeParameters()) {
            check(leaks, where + " type parameter " + v, v);
        }
    }

    private static void check(List<String> leaks, String where, Type type) {
        Set<Class<?>> named = new HashSet<>();
        collect(type, named, new HashSet<>());
        for (Class<?> c : named) {
            String pkg = c.getPackageName();
            if (pkg.startsWith("io.jfio.core") && !API.contains(pkg)) {
                leaks.add(where + " " + c.getName());
            }
        }
    }

    /** Every class that {@code type} names, through type arguments, arrays, wildcards and type variable bounds. */
    private static void collect(Type type, Set<Class<?>> out, Set<TypeVariable<?>> seen) {
        switch (type) {
            case null -> { }
            case Class<?> c when c.isArray() -> collect(c.getComponentType(), out, seen);
            case Class<?> c -> out.add(c);
            case ParameterizedType p -> {
                collect(p.getRawType(), out, seen);
                collect(p.getOwnerType(), out, seen);
                for (Type a : p.getActualTypeArguments()) {
                    collect(a, out, seen);
                }
            }
            case GenericArrayType g -> collect(g.getGenericComponentType(), out, seen);
            case WildcardType w -> {
                for (Type b : w.getUpperBounds()) {
                    collect(b, out, seen);
                }
                for (Type b : w.getLowerBounds()) {
                    collect(b, out, seen);
                }
            }
            case TypeVariable<?> v -> {
                if (seen.add(v)) {
                    for (Type b : v.getBounds()) {
                        collect(b, out, seen);
                    }
                }
            }
            default -> throw new AssertionError("unknown kind of type " + type);
        }
    }
}
