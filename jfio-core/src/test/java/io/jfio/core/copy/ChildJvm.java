package io.jfio.core.copy;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Command lines for a child JVM running {@link CopyChild}: this JVM's java, and a class path of only jfio-core's
 * classes and test classes (readable by any user, unlike the build's dependency cache).
 *
 * <p>Thread-safe; stateless.
 */
final class ChildJvm {
    private ChildJvm() {
    }

    static List<String> command(String... args) {
        String java = ProcessHandle.current().info().command().orElse(Path.of(System.getProperty("java.home"),
                "bin", "java").toString());
        List<String> cmd = new ArrayList<>(List.of(java, "--enable-native-access=ALL-UNNAMED", "-Xmx256m", "-cp",
                location(TreeCopy.class) + ":" + location(CopyChild.class), CopyChild.class.getName()));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static String location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }
}
