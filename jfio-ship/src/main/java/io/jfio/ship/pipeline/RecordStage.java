package io.jfio.ship.pipeline;

import io.jfio.core.sys.FileNames;
import io.jfio.ship.config.InputConfig;
import io.jfio.ship.harvest.Framer;
import io.jfio.ship.harvest.LineMatcher;
import io.jfio.ship.harvest.NdjsonEncoder;
import io.jfio.ship.harvest.RecordJoiner;
import io.jfio.ship.sink.RecordView;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Not thread-safe; owned by the pipeline thread.
 *
 * <p>Between framing and the sink: turns a batch of whole records into a {@link RecordView} when its sink needs more
 * than the bytes as read: the records one by one (a Kafka sink sends a multiline record as one Kafka record), the
 * records the input's {@code include-lines}/{@code exclude-lines} keep, and their encoding ({@code ndjson}: one JSON
 * object per record into a payload buffer; {@code headers}: the metadata the Kafka sink puts into headers). Batches
 * that need none of this (raw encoding, no filter, no multiline into Kafka) get no view and take the sinks' raw path
 * unchanged. The batch's bytes are copied once to a heap array, where records are filtered and encoded without
 * bounds-checked native accesses; the payload is copied back to native memory for the sinks' system calls, except
 * for a sink that copies it anyway (the dir sink), which gets the heap array.
 */
final class RecordStage {
    private static final DateTimeFormatter READ_SECOND = DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.")
            .withZone(ZoneOffset.UTC);
    private final RecordView.Encoding encoding;
    private final boolean recordSink;
    private final boolean heapPayload;
    private final String host;
    private final RecordView view = new RecordView();
    private final NdjsonEncoder ndjson = new NdjsonEncoder();
    private final Map<InputConfig, Filter> filters = new IdentityHashMap<>();
    private final Arena arena = Arena.ofAuto();
    private byte[] src = new byte[1 << 16];
    private byte[] kept = new byte[0];
    private MemorySegment payload = MemorySegment.NULL;
    private long timeMillis = Long.MIN_VALUE;
    private String timeText;
    private long timeSecond = Long.MIN_VALUE;
    private String secondText;

    /**
     * @param encoding   how the sink delivers records
     * @param recordSink whether the sink delivers records one by one (Kafka), so that it needs their boundaries even
     *                   when they go as they are
     * @param heapPayload whether the sink copies every payload before its system calls (the dir sink: into its
     *                   staging buffer or its writer's buffers), so that the payload may be the heap array itself
     *                   rather than a native copy of it
     */
    RecordStage(RecordView.Encoding encoding, boolean recordSink, boolean heapPayload) {
        this.encoding = encoding;
        this.recordSink = recordSink;
        this.heapPayload = heapPayload;
        this.host = hostName();
    }

    /** The machine's name as the kernel has it (what {@code hostname} prints), or {@code localhost}. */
    static String hostName() {
        try {
            String h = Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8).trim();
            if (!h.isEmpty()) return h;
        } catch (java.io.IOException | RuntimeException e) {
            // No procfs (a container without it): the JDK's idea, which may ask DNS.
        }
        try {
            return java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            return "localhost";
        }
    }

    /** Whether batches of {@code in} need a view. */
    boolean needed(InputConfig in) {
        return encoding != RecordView.Encoding.RAW || in.filtersLines() || (recordSink && in.multiline() != null);
    }

    /**
     * The view of the batch {@code bytes} of {@code t} read at {@code offset}: {@code records} records, ending at
     * {@code cut}'s ends when given (multiline), else at each newline; a batch of one record is one record whatever it
     * holds (a multiline record shipped on its timeout, a piece of an overlong line, a last line without newline).
     * Records a filter leaves out are not in it; a view of no records means the batch ships nothing.
     */
    RecordView view(TrackedFile t, MemorySegment bytes, long offset, long records, RecordJoiner.Cut cut) {
        int length = Math.toIntExact(bytes.byteSize());
        if (src.length < length) src = new byte[Math.max(length, src.length * 2)];
        MemorySegment.copy(bytes, ValueLayout.JAVA_BYTE, 0, src, 0, length);
        long now = System.currentTimeMillis();
        view.reset(encoding, now, host, t.input.fields());
        Filter filter = t.input.filtersLines() ? filters.computeIfAbsent(t.input, Filter::new) : null;
        if (encoding == RecordView.Encoding.NDJSON) {
            var id = t.sourceId();
            ndjson.begin(FileNames.encode(t.path), host, id == null ? 0 : id.device(), id == null ? 0 : id.inode(),
                    id != null, readTime(now), t.input.name(), t.input.fields());
        }
        keptLength = 0;
        dropped = 0;
        int from = 0;
        if (cut != null) {
            for (int i = 0; i < cut.records && cut.ends[i] <= length; i++) {
                int end = (int) cut.ends[i];
                record(bytes, filter, from, end, offset);
                from = end;
            }
        } else if (records > 1 && filter == null && encoding == RecordView.Encoding.NDJSON) {
            // Lines found by the encoder's own pass over the bytes.
            while (from < length) {
                int start = ndjson.length();
                int next = ndjson.line(src, from, length, offset + from);
                view.add(from, next, start, ndjson.length());
                from = next;
            }
        } else if (records > 1) {
            long nl;
            while (from < length && (nl = Framer.indexOfNewline(bytes, from, length)) >= 0) {
                record(bytes, filter, from, (int) nl + 1, offset);
                from = (int) nl + 1;
            }
        }
        if (from < length) record(bytes, filter, from, length, offset);
        if (encoding == RecordView.Encoding.NDJSON) {
            view.payload(nativeCopy(ndjson.bytes(), ndjson.length()));
        } else if (dropped > 0) {
            view.payload(nativeCopy(kept, keptLength));
        }
        return view;
    }

    /**
     * A view as {@link #view} makes it, with a payload even when the records go as they are (the bytes are not the
     * source file's: a decompressed gzip file).
     */
    RecordView viewAlways(TrackedFile t, MemorySegment bytes, long offset, long records, RecordJoiner.Cut cut) {
        RecordView v = view(t, bytes, offset, records, cut);
        if (v.payload() == null) v.payload(bytes);
        return v;
    }

    private int keptLength;
    private int dropped;

    /** How many records the last view left out. */
    int dropped() {
        return dropped;
    }

    private void record(MemorySegment bytes, Filter filter, int from, int to, long offset) {
        if (filter != null && !filter.keeps(bytes, from, to)) {
            dropped++;
            return;
        }
        if (encoding == RecordView.Encoding.NDJSON) {
            int start = ndjson.length();
            view.add(from, to, start, ndjson.record(src, from, to, offset + from));
        } else if (filter != null) {
            int n = to - from;
            if (kept.length < keptLength + n) {
                kept = java.util.Arrays.copyOf(kept, Math.max(keptLength + n, Math.max(kept.length * 2, 1 << 16)));
            }
            System.arraycopy(src, from, kept, keptLength, n);
            view.add(from, to, keptLength, keptLength + n);
            keptLength += n;
        } else {
            view.add(from, to, from, to);
        }
    }

    private MemorySegment nativeCopy(byte[] b, int n) {
        if (heapPayload) return MemorySegment.ofArray(b).asSlice(0, n);
        if (payload.byteSize() < n) payload = arena.allocate(Math.max(n, Math.max(payload.byteSize() * 2, 1 << 16)));
        MemorySegment.copy(b, 0, payload, ValueLayout.JAVA_BYTE, 0, n);
        return payload.asSlice(0, n);
    }

    /** {@code millis} as {@code uuuu-MM-ddTHH:mm:ss.SSSZ} (UTC): the date and time formatted once a second. */
    String readTime(long millis) {
        if (millis != timeMillis) {
            timeMillis = millis;
            long second = Math.floorDiv(millis, 1000);
            if (second != timeSecond) {
                timeSecond = second;
                secondText = READ_SECOND.format(Instant.ofEpochSecond(second));
            }
            int ms = (int) Math.floorMod(millis, 1000);
            timeText = secondText + (char) ('0' + ms / 100) + (char) ('0' + ms / 10 % 10) + (char) ('0' + ms % 10)
                    + 'Z';
        }
        return timeText;
    }

    /** An input's include and exclude expressions, each set joined into one alternation. */
    private static final class Filter {
        private final LineMatcher include;
        private final LineMatcher exclude;

        Filter(InputConfig in) {
            this.include = in.includeLines().isEmpty() ? null : LineMatcher.regex(any(in.includeLines()));
            this.exclude = in.excludeLines().isEmpty() ? null : LineMatcher.regex(any(in.excludeLines()));
        }

        private static String any(java.util.List<String> patterns) {
            StringBuilder b = new StringBuilder();
            for (String p : patterns) {
                if (!b.isEmpty()) b.append('|');
                b.append("(?:").append(p).append(')');
            }
            return b.toString();
        }

        /** Whether the record {@code [from, to)} (its last newline not matched) is shipped. */
        boolean keeps(MemorySegment bytes, long from, long to) {
            long end = to > from && bytes.get(ValueLayout.JAVA_BYTE, to - 1) == '\n' ? to - 1 : to;
            if (include != null && !include.matches(bytes, from, end)) return false;
            return exclude == null || !exclude.matches(bytes, from, end);
        }
    }
}
