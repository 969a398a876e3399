package io.jfio.bench.ship;

import io.jfio.bench.Processes;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The second peer: syslog-ng with a wildcard-file source and a network (TCP) destination, run as a child with a
 * private configuration, persist file, pid file and control socket.
 *
 * <p>Thread-safe; stateless. Debian's syslog-ng-core conflicts with the rsyslog package the other peer needs, so
 * {@link #find} does not install it: it fetches the packages with {@code apt-get download} into a cache directory,
 * unpacks them there with {@code dpkg-deb -x} and runs the binary from there with its libraries on
 * {@code LD_LIBRARY_PATH}. A syslog-ng on {@code PATH} is used as is.
 */
final class SyslogNg {
    /** How long one apt-get or dpkg-deb may take: a slow mirror, not a hung one. */
    private static final long APT_TIMEOUT_SECONDS = 10 * 60;
    /** Packages syslog-ng-core needs beyond a Debian base system with rsyslog. */
    private static final List<String> PACKAGES = List.of("syslog-ng-core", "libivykis0", "libpcre3", "libnet1",
            "libwrap0");
    /** Libraries it needs that a minimal system may lack: fetched only when they are not installed. */
    private static final List<String> MAYBE = List.of("libglib2.0-0", "libjson-c5", "libssl3", "libsystemd0",
            "libcap2");
    private static final Pattern VERSION = Pattern.compile("Installer-Version: (\\d+\\.\\d+)");

    /**
     * A runnable syslog-ng.
     *
     * @param binary     the syslog-ng executable
     * @param root       the unpacked packages, or null for a syslog-ng on PATH
     * @param configVersion the {@code @version} its configuration declares (major.minor)
     * @param installer  its full version, for the report
     */
    record Found(Path binary, Path root, String configVersion, String installer) {
        /** What comes before syslog-ng's own arguments: env(1) with the unpacked libraries, or nothing. */
        List<String> prefix() {
            if (root == null) return List.of();
            return List.of("env", "LD_LIBRARY_PATH=" + root.resolve("usr/lib/x86_64-linux-gnu") + ":"
                    + root.resolve("lib/x86_64-linux-gnu") + ":" + root.resolve("usr/lib/syslog-ng"));
        }
    }

    private SyslogNg() {
    }

    /** The cache directory: {@code $XDG_CACHE_HOME/jfio/syslog-ng}, else {@code ~/.cache/jfio/syslog-ng}. */
    static Path cacheDir() {
        String xdg = System.getenv("XDG_CACHE_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg) : Path.of(System.getProperty("user.home"), ".cache");
        return base.resolve("jfio").resolve("syslog-ng");
    }

    /**
     * syslog-ng from PATH, else from the cache, else fetched into the cache when {@code fetch} is set; null (with
     * the reason in one line on {@code err}) when it cannot be had.
     */
    static Found find(boolean fetch, PrintWriter err) {
        Path p = onPath();
        if (p != null) {
            Found f = probe(p, null);
            if (f != null) return f;
            err.println("bench ship: " + p + " --version failed: syslog-ng not run");
            return null;
        }
        Path cache = cacheDir();
        Path root = cache.resolve("root");
        if (Files.isExecutable(root.resolve("usr/sbin/syslog-ng"))) {
            Found f = probe(root.resolve("usr/sbin/syslog-ng"), root);
            if (f != null) return f;
        }
        if (!fetch) {
            err.println("bench ship: syslog-ng is not on PATH nor in " + cache + " (--no-install): syslog-ng not run");
            return null;
        }
        if (onPath("apt-get") == null || onPath("dpkg-deb") == null) {
            err.println("bench ship: syslog-ng is not on PATH and there is no apt-get/dpkg-deb to fetch it: "
                    + "syslog-ng not run");
            return null;
        }
        err.println("bench ship: fetching syslog-ng's packages with apt-get download into " + cache);
        try {
            String problem = fetch(cache, root);
            if (problem != null) {
                err.println("bench ship: could not fetch syslog-ng (" + problem + "): syslog-ng not run");
                return null;
            }
        } catch (IOException e) {
            err.println("bench ship: could not fetch syslog-ng (" + e.getMessage() + "): syslog-ng not run");
            return null;
        }
        Found f = probe(root.resolve("usr/sbin/syslog-ng"), root);
        if (f == null) err.println("bench ship: the fetched syslog-ng does not run (" + root + "): syslog-ng not run");
        return f;
    }

    /** Downloads and unpacks the packages into a fresh directory, then renames it to {@code root}; null when done. */
    private static String fetch(Path cache, Path root) throws IOException {
        Files.createDirectories(cache, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                "rwx------")));
        Path debs = Files.createTempDirectory(cache, "debs-");
        Path fresh = Files.createTempDirectory(cache, "root-");
        try {
            List<String> pkgs = new ArrayList<>(PACKAGES);
            for (String m : MAYBE) {
                if (!installed(m)) pkgs.add(m);
            }
            List<String> cmd = new ArrayList<>(List.of("apt-get", "download", "-q"));
            cmd.addAll(pkgs);
            if (run(cmd, debs) != 0) {
                // The package lists may be missing or old on a fresh machine.
                run(List.of("apt-get", "update", "-q"), debs);
                if (run(cmd, debs) != 0) return "apt-get download " + String.join(" ", pkgs) + " failed; no network?";
            }
            List<Path> files;
            try (Stream<Path> s = Files.list(debs)) {
                files = s.filter(f -> f.getFileName().toString().endsWith(".deb")).toList();
            }
            for (Path deb : files) {
                if (run(List.of("dpkg-deb", "-x", deb.toString(), fresh.toString()), debs) != 0) {
                    return "dpkg-deb -x " + deb.getFileName() + " failed";
                }
            }
            ShipBench.deleteTree(root);
            Files.move(fresh, root);
            return null;
        } finally {
            ShipBench.deleteTree(debs);
            ShipBench.deleteTree(fresh);
        }
    }

    private static boolean installed(String pkg) {
        try {
            Process p = new ProcessBuilder("dpkg-query", "-W", "-f=${Status}", pkg).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            return p.waitFor() == 0 && out.contains("install ok installed");
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static int run(List<String> cmd, Path dir) {
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
        try {
            return Processes.run(pb, APT_TIMEOUT_SECONDS);
        } catch (IOException e) {
            return -1;
        }
    }

    private static Path onPath() {
        return onPath("syslog-ng");
    }

    private static Path onPath(String name) {
        for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin").split(":")) {
            if (d.isEmpty()) continue;
            Path c = Path.of(d, name);
            if (Files.isExecutable(c)) return c;
        }
        return null;
    }

    /** Runs {@code syslog-ng --version}: its version, or null when it does not run (within 10 s). */
    private static Found probe(Path binary, Path root) {
        Found f = new Found(binary, root, "", "");
        List<String> cmd = new ArrayList<>(f.prefix());
        cmd.add(binary.toString());
        cmd.add("--version");
        if (root != null) cmd.add("--module-path=" + modulePath(root));
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            try {
                // Waited for before reading: its few lines of output fit in the pipe.
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    Processes.kill(p);
                    return null;
                }
            } catch (InterruptedException e) {
                Processes.kill(p);
                Thread.currentThread().interrupt();
                return null;
            }
            String out = new String(p.getInputStream().readAllBytes());
            Matcher m = VERSION.matcher(out);
            if (p.exitValue() != 0 || !m.find()) return null;
            String full = out.lines().filter(l -> l.startsWith("Installer-Version: ")).findFirst().orElse("")
                    .substring("Installer-Version: ".length()).trim();
            return new Found(binary, root, m.group(1), "syslog-ng " + full);
        } catch (IOException e) {
            return null;
        }
    }

    /** The module directory of unpacked packages: {@code usr/lib/syslog-ng/<major.minor>}. */
    private static Path modulePath(Path root) {
        Path lib = root.resolve("usr/lib/syslog-ng");
        try (Stream<Path> s = Files.list(lib)) {
            return s.filter(d -> Files.isDirectory(d) && d.getFileName().toString().matches("\\d+\\.\\d+"))
                    .findFirst().orElse(lib);
        } catch (IOException e) {
            return lib;
        }
    }

    /**
     * Writes a configuration that follows the files matching {@code pattern} in {@code dir} from their beginning and
     * sends every line unchanged ({@code ${MESSAGE}\n}, no parsing) to 127.0.0.1:port over plain TCP.
     */
    static Path configure(Found f, Path work, Path dir, String pattern, int port) throws IOException {
        String conf = "@version: " + f.configVersion() + "\n"
                + "options { stats-freq(0); log-msg-size(65536); log-fifo-size(500000); };\n"
                + "source s { wildcard-file(base-dir(\"" + dir + "\") filename-pattern(\"" + pattern + "\") "
                + "recursive(no) flags(no-parse) max-files(100000)); };\n"
                + "destination d { network(\"127.0.0.1\" port(" + port + ") transport(\"tcp\") "
                + "template(\"${MESSAGE}\\n\")); };\n"
                + "log { source(s); destination(d); };\n";
        Path c = work.resolve("syslog-ng.conf");
        Files.writeString(c, conf);
        return c;
    }

    /**
     * Writes a configuration that reads {@code input} from its beginning and writes every line as one JSON object
     * (syslog-ng's {@code $(format-json)} template function) to the file {@code out}: the message, and the metadata
     * syslog-ng has for a line read from a file (the file's name, the host, the time it was received, with
     * milliseconds), the input's tag and the two static fields of the jfio row as {@code fields.NAME}. syslog-ng has no
     * byte offset nor file identity to give. Lines are not parsed as syslog ({@code flags(no-parse)}).
     */
    static Path configureJson(Found f, Path work, Path input, Path out) throws IOException {
        Path in = input.toAbsolutePath();
        String conf = "@version: " + f.configVersion() + "\n"
                + "options { stats-freq(0); log-msg-size(65536); log-fifo-size(500000); frac-digits(3); "
                + "keep-hostname(no); };\n"
                + "source s { wildcard-file(base-dir(\"" + in.getParent() + "\") filename-pattern(\""
                + in.getFileName() + "\") recursive(no) flags(no-parse)); };\n"
                + "destination d { file(\"" + out.toAbsolutePath() + "\" template(\"$(format-json --scope none "
                + "message=${MESSAGE} path=${FILE_NAME} host=${HOST} read_time=${R_ISODATE} input=t "
                + "fields.service=bench fields.env=test)\\n\")); };\n"
                + "log { source(s); destination(d); };\n";
        Path c = work.resolve("syslog-ng.conf");
        Files.writeString(c, conf);
        return c;
    }

    /** The command line: foreground, this configuration, private persist, pid and control files, no capabilities. */
    static List<String> command(Found f, Path conf, Path work) {
        Path w = work.toAbsolutePath();
        List<String> cmd = new ArrayList<>(f.prefix());
        cmd.addAll(List.of(f.binary().toString(), "-F", "-f", conf.toString(), "--persist-file="
                + w.resolve("syslog-ng.persist"), "--pidfile=" + w.resolve("syslog-ng.pid"), "--control="
                + w.resolve("syslog-ng.ctl"), "--no-caps"));
        if (f.root() != null) cmd.add("--module-path=" + modulePath(f.root()));
        return cmd;
    }
}
