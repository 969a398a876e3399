package io.jfio.ship.state;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jfio.core.file.StatBuffer;
import io.jfio.core.sys.FileNames;
import io.jfio.ship.log.ShipLog;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * What a state directory says: every sink's checkpoints (file, identity, offset) with each file's lag now, and
 * whether a shipper holds the directory; and the one edit, forgetting a file's checkpoints, made only under the
 * directory's lock.
 *
 * <p>Not thread-safe; one use.
 */
public final class StateReport {
    /**
     * One checkpoint.
     *
     * @param sink   the sink it belongs to
     * @param path   the file's path when it was last seen
     * @param device the file's device
     * @param inode  the file's inode
     * @param offset where shipping resumes
     * @param size   the size of the file at {@code path} now, when it is still that (device, inode); else null
     * @param lag    {@code size - offset} (bytes not shipped yet), when {@code size} is known; else null
     * @param seenAt when the shipper last saw the file
     */
    public record Entry(String sink, String path, long device, long inode, long offset, Long size, Long lag,
                        Instant seenAt) {
    }

    private final Path state;
    private final List<Entry> entries;
    private final String holder;
    private final List<String> problems;

    private StateReport(Path state, List<Entry> entries, String holder, List<String> problems) {
        this.state = state;
        this.entries = entries;
        this.holder = holder;
        this.problems = problems;
    }

    /**
     * Reads every checkpoint file of {@code state}; nothing is changed, and a running shipper is not disturbed (it
     * replaces its files by rename).
     *
     * @throws NoSuchFileException   when {@code state} does not exist
     * @throws NotDirectoryException when it is not a directory (a symlink is not followed)
     * @throws IOException           when it cannot be listed
     */
    public static StateReport read(Path state) throws IOException {
        if (!Files.exists(state, LinkOption.NOFOLLOW_LINKS)) throw new NoSuchFileException(state.toString());
        if (!Files.isDirectory(state, LinkOption.NOFOLLOW_LINKS)) throw new NotDirectoryException(state.toString());
        List<Entry> out = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        ShipLog quiet = new ShipLog(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), false);
        try (Arena arena = Arena.ofConfined(); DirectoryStream<Path> dir = Files.newDirectoryStream(state)) {
            StatBuffer stx = new StatBuffer(arena);
            for (Path f : dir) {
                String sink = CheckpointStore.sinkOf(f.getFileName().toString());
                if (sink == null || !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) continue;
                CheckpointStore.Loaded loaded = new CheckpointStore(f).load(quiet, false);
                if (loaded.corrupt()) problems.add(f + ": " + loaded.problem());
                for (Checkpoint c : loaded.entries()) out.add(entry(sink, c, stx));
            }
        }
        out.sort(Comparator.comparing(Entry::sink).thenComparing(Entry::path));
        return new StateReport(state, out, holder(state), problems);
    }

    private static Entry entry(String sink, Checkpoint c, StatBuffer stx) {
        Long size = null;
        try {
            // Not followed: a symlink at the path now is not the file the checkpoint is about.
            if (stx.ofPathNoFollow(c.path()) == 0 && stx.device() == c.device() && stx.inode() == c.inode()) {
                size = stx.size();
            }
        } catch (RuntimeException e) {
            // A path the kernel cannot take now: no size, no lag.
        }
        return new Entry(sink, c.path(), c.device(), c.inode(), c.offset(), size,
                size == null ? null : Math.max(0, size - c.offset()), Instant.ofEpochMilli(c.seenAt()));
    }

    /** The pid of the shipper holding {@code state}'s lock, or null when none does (or it cannot be told). */
    private static String holder(Path state) {
        try {
            return StateLock.holder(state, "lock");
        } catch (IOException e) {
            return null;
        }
    }

    /** Every checkpoint, by sink and path. */
    public List<Entry> entries() {
        return entries;
    }

    /** The pid of the shipper that holds the directory, or null. */
    public String holder() {
        return holder;
    }

    /** Checkpoint files that are damaged (their intact entries are listed). */
    public List<String> problems() {
        return problems;
    }

    /** A table for a terminal: one line per checkpoint. */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append("state ").append(state).append(holder == null ? " (no shipper running)" : " (in use by jfio ship, pid "
                + holder + ")").append('\n');
        if (entries.isEmpty()) {
            b.append("no checkpoints\n");
        } else {
            b.append(String.format(Locale.ROOT, "%-10s %14s %14s %14s  %-24s %s%n", "sink", "offset", "size", "lag",
                    "last seen", "file (device:inode)"));
            for (Entry e : entries) {
                b.append(String.format(Locale.ROOT, "%-10s %14d %14s %14s  %-24s %s (%d:%d)%n", e.sink(), e.offset(),
                        e.size() == null ? "-" : Long.toString(e.size()), e.lag() == null ? "-" : e.lag().toString(),
                        e.seenAt(), printable(FileNames.show(e.path())), e.device(), e.inode()));
            }
        }
        for (String p : problems) b.append("damaged: ").append(p).append('\n');
        return b.toString();
    }

    /**
     * {@code name} with control characters as {@code \xNN}: a file name holding a newline must not add a line to the
     * table that looks like another entry.
     */
    static String printable(String name) {
        StringBuilder b = null;
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean control = c < 0x20 || c == 0x7f;
            if (control && b == null) b = new StringBuilder(name.length() + 8).append(name, 0, i);
            if (b == null) continue;
            if (control) {
                b.append(String.format(Locale.ROOT, "\\x%02x", (int) c));
            } else {
                b.append(c);
            }
        }
        return b == null ? name : b.toString();
    }

    /** The same as one JSON object: {@code state}, {@code locked_by}, {@code entries}, {@code damaged}. */
    public String json() {
        ObjectMapper m = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        ObjectNode root = m.createObjectNode();
        root.put("state", state.toString());
        if (holder == null) {
            root.putNull("locked_by");
        } else {
            root.put("locked_by", holder);
        }
        ArrayNode list = root.putArray("entries");
        for (Entry e : entries) {
            ObjectNode n = list.addObject();
            n.put("sink", e.sink());
            n.put("path", FileNames.show(e.path()));
            n.put("device", e.device());
            n.put("inode", e.inode());
            n.put("offset", e.offset());
            if (e.size() == null) {
                n.putNull("size");
                n.putNull("lag");
            } else {
                n.put("size", e.size());
                n.put("lag", e.lag());
            }
            n.put("seen_at", e.seenAt().toString());
        }
        ArrayNode damaged = root.putArray("damaged");
        problems.forEach(damaged::add);
        try {
            return m.writeValueAsString(root) + "\n";
        } catch (com.fasterxml.jackson.core.JsonProcessingException ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * Removes the checkpoints of the file at {@code path} (of {@code sink}, or of every sink when null), under the
     * state directory's lock: the file is then shipped as if never seen. Returns how many were removed.
     *
     * @throws StateLock.LockedException when a shipper holds the directory (the message names its pid)
     * @throws IOException               when the directory or a checkpoint file cannot be read or written
     */
    public static int forget(Path state, String path, String sink) throws IOException {
        if (!Files.isDirectory(state, LinkOption.NOFOLLOW_LINKS)) throw new NoSuchFileException(state.toString());
        ShipLog quiet = new ShipLog(new java.io.PrintStream(java.io.OutputStream.nullOutputStream()), false);
        int removed = 0;
        try (StateDir opened = StateDir.open(state);
             StateLock held = StateLock.acquire(opened, "lock", "state directory");
             DirectoryStream<Path> dir = Files.newDirectoryStream(state)) {
            for (Path f : dir) {
                String s = CheckpointStore.sinkOf(f.getFileName().toString());
                if (s == null || sink != null && !sink.equals(s)
                        || !Files.isRegularFile(f, LinkOption.NOFOLLOW_LINKS)) {
                    continue;
                }
                CheckpointStore store = new CheckpointStore(opened, f.getFileName().toString());
                List<Checkpoint> all = store.load(quiet, false).entries();
                List<Checkpoint> kept = all.stream().filter(c -> !c.path().equals(path)).toList();
                if (kept.size() == all.size()) continue;
                store.write(kept);
                removed += all.size() - kept.size();
            }
        }
        return removed;
    }
}
