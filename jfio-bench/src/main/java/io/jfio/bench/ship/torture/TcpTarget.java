package io.jfio.bench.ship.torture;

import io.jfio.bench.ship.Child;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The tcp sink, acknowledged, into a real {@code jfio receive --listen 127.0.0.1:0 --to DIR} child process (never
 * killed: the shipper is under test). The receiver writes one file per connection, {@code receive-MS-N.log}; each is
 * a stream of its own (a connection cut by a kill may end in part of a record: the resend goes to the next file).
 *
 * <p>Thread-safe for {@link #holds}; started and closed by the run's thread.
 */
final class TcpTarget implements Target {
    private static final long TAIL = 8L << 20;
    private static final Pattern FILE = Pattern.compile("receive-(\\d+)-(\\d+)\\.log");
    private static final Pattern LISTENING = Pattern.compile("event=listening address=\\S*:(\\d+)");

    private final Path dir;
    private final Child receiver;
    private final int port;

    private TcpTarget(Path dir, Child receiver, int port) {
        this.dir = dir;
        this.receiver = receiver;
        this.port = port;
    }

    /** Starts {@code jfio receive} ({@code java} = the JVM command up to the main class) and waits until it listens. */
    static TcpTarget start(List<String> java, Path dir, Path log) throws IOException, InterruptedException {
        List<String> cmd = new java.util.ArrayList<>(java);
        cmd.addAll(List.of("receive", "--listen", "127.0.0.1:0", "--to", dir.toString()));
        Child c = Child.start(cmd, log);
        try {
            long deadline = System.nanoTime() + 90_000_000_000L;
            while (System.nanoTime() < deadline) {
                if (!c.process().isAlive()) {
                    throw new IOException("jfio receive exited with " + c.waitFor(10) + ":\n" + Killer.tail(log, 20));
                }
                if (Files.exists(log)) {
                    Matcher m = LISTENING.matcher(Files.readString(log, StandardCharsets.UTF_8));
                    if (m.find()) return new TcpTarget(dir, c, Integer.parseInt(m.group(1)));
                }
                Thread.sleep(20);
            }
            throw new IOException("jfio receive did not listen within 90 s: log=" + log);
        } catch (IOException | InterruptedException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    @Override
    public String name() {
        return "tcp";
    }

    @Override
    public String to() {
        return "tcp:127.0.0.1:" + port;
    }

    @Override
    public long serverPid() {
        return receiver.pid();
    }

    private List<Path> files() throws IOException {
        return Target.list(dir, n -> FILE.matcher(n).matches(), Comparator.comparingLong(TcpTarget::connection));
    }

    /** The receiver's connection number of a file. */
    private static long connection(Path p) {
        Matcher m = FILE.matcher(p.getFileName().toString());
        return m.matches() ? Long.parseLong(m.group(2)) : Long.MAX_VALUE;
    }

    @Override
    public boolean holds(byte[] record) throws IOException {
        return Target.tailHolds(files(), record, TAIL);
    }

    @Override
    public void read(Verifier v) throws IOException {
        for (Path p : files()) {
            String name = p.getFileName().toString();
            v.addBytes(name, name, Files.readAllBytes(p));
        }
    }

    /** Stops the receiver with SIGTERM (it syncs what it wrote) and waits for it. */
    @Override
    public void close() throws IOException {
        if (receiver.process().isAlive()) receiver.stop();
        receiver.close();
    }
}
