package io.jfio.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/**
 * The {@code --version} text: jfio's Maven project version (from a resource filtered at build time) and the JDK
 * running it.
 *
 * <p>Thread-safe; stateless.
 */
public final class VersionProvider implements IVersionProvider {
    private static final String RESOURCE = "version.properties";

    /** The Maven project version of this build, e.g. {@code 0.1.0-SNAPSHOT}. */
    public static String version() {
        try (InputStream in = VersionProvider.class.getResourceAsStream(RESOURCE)) {
            if (in == null) throw new IllegalStateException("missing resource: resource=" + RESOURCE);
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version");
            // An unfiltered resource means the classes were built outside Maven (e.g. by an IDE).
            if (v == null || v.startsWith("${")) return "unknown";
            return v;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read resource: resource=" + RESOURCE, e);
        }
    }

    @Override
    public String[] getVersion() {
        return new String[] {
            "jfio " + version(),
            "JDK " + Runtime.version() + " (" + System.getProperty("java.vendor") + ", "
                    + System.getProperty("java.home") + ")",
        };
    }
}
