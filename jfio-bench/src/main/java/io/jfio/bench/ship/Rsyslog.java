package io.jfio.bench.ship;

import io.jfio.bench.Processes;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The peer: rsyslogd with imfile (inotify mode), run as a child with a private configuration, work directory and pid
 * file. {@link #find} installs it from Debian's packages when it is missing and this is root.
 *
 * <p>Thread-safe; stateless.
 */
final class Rsyslog {
    /** How long one apt-get may take: a slow mirror, not a hung one. */
    private static final long APT_TIMEOUT_SECONDS = 15 * 60;

    private Rsyslog() {
    }

    /**
     * rsyslogd's path, installing the Debian package when it is missing, {@code install} is set and this is root;
     * null (with the reason on {@code err}) when it cannot be had.
     */
    static Path find(boolean install, PrintWriter err) {
        Path p = located();
        if (p != null) return p;
        if (!install) {
            err.println("bench ship: rsyslogd is not installed (--no-install): no peer");
            return null;
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            err.println("bench ship: rsyslogd is not installed and this is not root (apt-get install -y rsyslog): "
                    + "no peer");
            return null;
        }
        err.println("bench ship: installing rsyslog with apt-get");
        if (!run(List.of("apt-get", "install", "-y", "-q", "rsyslog"))) {
            // The package lists may be missing or old on a fresh machine.
            run(List.of("apt-get", "update", "-q"));
            if (!run(List.of("apt-get", "install", "-y", "-q", "rsyslog"))) {
                err.println("bench ship: apt-get install rsyslog failed (no network?): no peer");
                return null;
            }
        }
        return located();
    }

    private static Path located() {
        for (String d : (System.getenv().getOrDefault("PATH", "") + ":/usr/sbin:/sbin").split(":")) {
            if (d.isEmpty()) continue;
            Path c = Path.of(d, "rsyslogd");
            if (Files.isExecutable(c)) return c;
        }
        return null;
    }

    private static boolean run(List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("DEBIAN_FRONTEND", "noninteractive");
        try {
            // A timeout kills apt-get's dpkg and maintainer scripts too.
            return Processes.run(pb, APT_TIMEOUT_SECONDS) == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Writes a configuration that reads {@code input} (a file or a glob) with imfile from its beginning and writes
     * every line unchanged ({@code %msg%\n}) to {@code output} with omfile, or, with {@code port > 0}, sends it to
     * 127.0.0.1:port over plain TCP (newline framing) with omfwd.
     */
    static Path configure(Path work, String input, Path output, int port) throws IOException {
        Path wd = Files.createDirectories(work.resolve("rsyslog-work"));
        String action = port > 0
                ? "action(type=\"omfwd\" target=\"127.0.0.1\" port=\"" + port + "\" protocol=\"tcp\" template=\"raw\")"
                : "action(type=\"omfile\" file=\"" + output + "\" template=\"raw\" asyncWriting=\"on\" "
                        + "ioBufferSize=\"1m\" flushOnTXEnd=\"off\")";
        // maxMessageSize above the line length; no metadata, so %msg% is the line exactly as written.
        String conf = "global(workDirectory=\"" + wd + "\" maxMessageSize=\"64k\")\n"
                + "module(load=\"imfile\" mode=\"inotify\")\n"
                + "template(name=\"raw\" type=\"string\" string=\"%msg%\\n\")\n"
                + "input(type=\"imfile\" File=\"" + input + "\" Tag=\"t\" readMode=\"0\" freshStartTail=\"off\" "
                + "addMetadata=\"off\")\n"
                + action + "\n";
        Path c = work.resolve("rsyslog.conf");
        Files.writeString(c, conf);
        return c;
    }

    /** The command line: foreground, this configuration, a private pid file. */
    static List<String> command(Path rsyslogd, Path conf, Path work) {
        return List.of(rsyslogd.toString(), "-n", "-f", conf.toString(), "-i", work.resolve("rsyslog.pid")
                .toAbsolutePath().toString());
    }

    /** rsyslogd's version line, or "rsyslogd" (also when it does not answer within 10 s: then it is killed). */
    static String version(Path rsyslogd) {
        try {
            Process p = new ProcessBuilder(rsyslogd.toString(), "-v").redirectErrorStream(true).start();
            try {
                // Waited for before reading: reading to the end would wait as long as a hung rsyslogd. Its few
                // lines of output fit in the pipe.
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    Processes.kill(p);
                    return "rsyslogd";
                }
            } catch (InterruptedException e) {
                Processes.kill(p);
                Thread.currentThread().interrupt();
                return "rsyslogd";
            }
            String first = new String(p.getInputStream().readAllBytes()).lines().findFirst().orElse("rsyslogd");
            // "rsyslogd  8.2302.0 (aka 2023.02) compiled with:"
            return first.replace("compiled with:", "").replaceAll("\\s+", " ").trim();
        } catch (IOException e) {
            return "rsyslogd";
        }
    }
}
