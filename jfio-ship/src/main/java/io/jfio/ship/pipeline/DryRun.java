package io.jfio.ship.pipeline;

import io.jfio.core.file.StatBuffer;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.ship.config.InputConfig;
import io.jfio.ship.config.ShipConfig;
import io.jfio.ship.config.Start;
import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.log.ShipLog;
import io.jfio.ship.state.Checkpoint;
import io.jfio.ship.state.CheckpointStore;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Thread-safe; stateless.
 *
 * <p>{@code --dry-run}: what a run would ship, decided by the same rule a run uses ({@link Resume}), without opening
 * the sink, taking the lock or changing the state.
 */
public final class DryRun {
    private DryRun() {
    }

    /**
     * What a run would ship, without opening the sink or changing the state: one line per file,
     * {@code path=... dev=... ino=... size=... from=... bytes=... why=...}, decided by the same rules as a run
     * ({@link Resume}).
     *
     * @param committed the sink's committed positions when they can be read without opening it, else null
     */
    public static List<String> report(String name, List<InputConfig> inputs, ShipConfig config,
                                      CheckpointStore store, List<Checkpoint> committed, ShipLog log)
            throws IOException {
        List<String> out = new ArrayList<>();
        CheckpointStore.Loaded loaded = store.load(log, false);
        List<Checkpoint> positions = committed == null ? loaded.entries() : Pipeline.positions(name, committed,
                loaded.entries(), log);
        Map<TrackedFile.Id, List<Checkpoint>> byId = new HashMap<>();
        for (Checkpoint c : positions) {
            byId.computeIfAbsent(new TrackedFile.Id(c.device(), c.inode()), k -> new ArrayList<>(2)).add(c);
        }
        boolean firstRun = positions.isEmpty() && !loaded.corrupt();
        try (Arena arena = Arena.ofConfined()) {
            StatBuffer stx = new StatBuffer(arena);
            MemorySegment scratch = arena.allocate(Fingerprint.SIZE);
            Discovery d = new Discovery(inputs, stx, log);
            List<Discovery.Found> found = new ArrayList<>(d.scan());
            // As in a run: files with a position of their own first, so that what they held before is known.
            found.sort((a, b) -> Boolean.compare(!byId.containsKey(new TrackedFile.Id(a.device(), a.inode())),
                    !byId.containsKey(new TrackedFile.Id(b.device(), b.inode()))));
            // As in a run: positions whose file is gone describe a content a copy may hold.
            List<Checkpoint> orphans = new ArrayList<>(d.gone(byId, found));
            java.util.Set<TrackedFile.Id> seen = new java.util.HashSet<>();
            for (Discovery.Found f : found) {
                if (!f.regular()) {
                    out.add("sink=" + name + " path=" + f.path() + " skip=not-a-regular-file type=" + f.type());
                    continue;
                }
                TrackedFile.Id id = new TrackedFile.Id(f.device(), f.inode());
                if (!seen.add(id)) continue;
                int fd = LibC.openat(Fcntl.AT_FDCWD, f.path(), Fcntl.O_RDONLY | Fcntl.O_CLOEXEC
                        | Fcntl.O_NONBLOCK, 0);
                if (fd < 0) {
                    out.add("sink=" + name + " path=" + f.path() + " skip=cannot-open errno=" + Errno.name(-fd));
                    continue;
                }
                Resume.Decision dec;
                try {
                    Resume.Head head = len -> Fingerprint.of(fd, len, scratch);
                    dec = Resume.own(f.size(), head, byId.remove(id));
                    if (dec != null) orphans.addAll(dec.orphans());
                    if (Resume.byContentToo(dec)) {
                        Resume.Decision copy = Resume.copy(f.size(), head, orphans);
                        if (copy != null) {
                            dec = copy;
                        } else if (dec == null) {
                            dec = Resume.fresh(f.size(), f.input().start() == Start.END && firstRun,
                                    f.input().ignoredAsOlder(f.mtimeNanos(), System.currentTimeMillis()));
                        }
                    }
                } finally {
                    LibC.close(fd);
                }
                out.add("sink=" + name + " path=" + f.path() + " dev=" + f.device() + " ino=" + f.inode() + " size="
                        + f.size() + " from=" + dec.offset() + " bytes=" + Math.max(0, f.size() - dec.offset())
                        + " why=" + dec.why());
            }
        }
        return out;
    }
}
