package io.jfio.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** Not thread-safe; one per test. A small tmpfs mounted for a test (root only), unmounted by {@link #close}. */
final class Tmpfs implements AutoCloseable {
    private final Path dir;

    private Tmpfs(Path dir) {
        this.dir = dir;
    }

    /** Mounts a tmpfs with {@code options} (e.g. {@code size=64k}) on {@code dir}; null when mounting is refused. */
    static Tmpfs mount(Path dir, String options) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("mount", "-t", "tmpfs", "-o", options, "tmpfs", dir.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return null;
        }
        return p.exitValue() == 0 ? new Tmpfs(dir) : null;
    }

    /** The mount point. */
    Path dir() {
        return dir;
    }

    @Override
    public void close() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("umount", dir.toString()).inheritIO().start();
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IOException("umount failed: " + dir);
    }
}
