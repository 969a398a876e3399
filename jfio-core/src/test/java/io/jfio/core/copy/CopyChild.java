package io.jfio.core.copy;

import java.nio.file.Path;
import java.util.List;

/**
 * Run in a child JVM by {@link CopyCrashTest}, {@link CopyAsideTest} and {@link CopyPermissionTest}:
 * {@code cp -a SRC DST} through {@link TreeCopy} with four workers (large files split), optionally fsyncing every
 * file (slow on purpose, so the parent can kill it mid-copy). Prints each failure and a summary; exits 0 when all was
 * copied, 1 otherwise.
 */
public final class CopyChild {
    private CopyChild() {
    }

    /** {@code [--fsync] [--aside] SRC DST}; {@code --aside} sets {@link TreeCopy#ASIDE_PROP}. */
    public static void main(String[] args) {
        boolean fsync = false;
        int i = 0;
        for (; args[i].startsWith("--"); i++) {
            if (args[i].equals("--fsync")) fsync = true;
            if (args[i].equals("--aside")) System.setProperty(TreeCopy.ASIDE_PROP, "true");
        }
        // Files from 16 MiB are split in 4 MiB parts, so that a kill can also land in a file several workers share
        // (where they are not in the page cache: the caller evicts them).
        CopyOptions o = CopyOptions.archive().jobs(4).sequential(false).fsync(fsync).splitThreshold(16 << 20)
                .chunkSize(4 << 20).build();
        CopyResult r = TreeCopy.of(List.of(Path.of(args[i])), Path.of(args[i + 1]), o, new CopyListener() {
            @Override
            public void onFailure(CopyFailure f) {
                System.out.println("failure: " + f);
            }

            @Override
            public void onNotice(String message) {
                System.out.println("notice: " + message);
            }
        }).run();
        System.out.println("result: files=" + r.files() + " failures=" + r.failureCount());
        System.out.flush();
        System.exit(r.ok() ? 0 : 1);
    }
}
