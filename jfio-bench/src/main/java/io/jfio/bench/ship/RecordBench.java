package io.jfio.bench.ship;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jfio.core.file.PageCache;
import io.jfio.ship.sink.DirSink;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.SequenceInputStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Function;

/**
 * Not thread-safe; run by the benchmark's thread.
 *
 * <p>The record workloads of {@code jfio bench ship}: the single file of {@link LogLines} shipped as NDJSON with every
 * piece of metadata and two static fields, and a Java application's log (20% of its records an exception with its
 * stack trace) shipped with the {@code java} multiline preset, both into the dir sink with {@code --once}; each
 * against rsyslog doing the same in the same run (imfile with {@code addMetadata} and a JSON list template; imfile
 * with {@code startmsg.regex}), and the NDJSON one against syslog-ng's JSON template too (a wildcard-file source and
 * {@code $(format-json)} into a file destination). Every delivery is checked: each NDJSON object is parsed and its
 * message (and jfio's offset) compared with the input line; multiline output must equal the input byte for byte.
 */
final class RecordBench {
    /** NDJSON with metadata into the dir sink, MB/s of input. */
    static final double TARGET_NDJSON_MBPS = 400;
    /** The Java log with multiline records into the dir sink, MB/s of input. */
    static final double TARGET_MULTILINE_MBPS = 300;
    private static final long TIMEOUT_S = 600;

    private final ShipBenchOptions o;
    private final PrintWriter err;
    private final Path work;
    private final Path rsyslogd;
    private final SyslogNg.Found syslogNg;
    private final Function<String[], List<String>> jfio;
    final List<Map<String, Object>> rows = new ArrayList<>();
    final List<String> problems = new ArrayList<>();
    long linesBytes;
    long javaBytes;

    RecordBench(ShipBenchOptions o, PrintWriter err, Path work, Path rsyslogd, SyslogNg.Found syslogNg,
                Function<String[], List<String>> jfio) {
        this.o = o;
        this.err = err;
        this.work = work;
        this.rsyslogd = rsyslogd;
        this.syslogNg = syslogNg;
        this.jfio = jfio;
    }

    void run() throws IOException {
        Path lines = work.resolve("records-lines.log");
        Path java = work.resolve("records-java.log");
        progress("writing %,d lines to %s and a Java log of the same size to %s", o.lines(), lines, java);
        linesBytes = LogLines.writeFile(lines, o.lines());
        javaBytes = writeJavaLog(java, linesBytes, 42);
        for (Path p : List.of(lines, java)) {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                ch.force(false);
            }
            PageCache.warm(p);
        }
        for (int rep = 1; rep <= o.reps(); rep++) {
            progress("records: ndjson with metadata -> dir sink, run %d of %d", rep, o.reps());
            io.jfio.bench.Processes.sync();
            rows.add(jfioRun("ndjson", lines, rep, "--encoding", "ndjson", "--field", "service=bench", "--field",
                    "env=test"));
            progress("records: java log, multiline java -> dir sink, run %d of %d", rep, o.reps());
            io.jfio.bench.Processes.sync();
            rows.add(jfioRun("multiline", java, rep, "--multiline", "java"));
        }
        if (rsyslogd != null) {
            int reps = Math.max(1, o.reps() / 3);
            for (int rep = 1; rep <= reps; rep++) {
                progress("records: rsyslog JSON template -> omfile, run %d of %d", rep, reps);
                io.jfio.bench.Processes.sync();
                rows.add(rsyslogRun("ndjson", lines, rep));
                progress("records: rsyslog startmsg.regex -> omfile, run %d of %d", rep, reps);
                io.jfio.bench.Processes.sync();
                rows.add(rsyslogRun("multiline", java, rep));
            }
        }
        if (syslogNg != null) {
            int reps = Math.max(1, o.reps() / 3);
            for (int rep = 1; rep <= reps; rep++) {
                progress("records: syslog-ng format-json template -> file, run %d of %d", rep, reps);
                io.jfio.bench.Processes.sync();
                rows.add(syslogNgRun(lines, rep));
            }
        }
        Files.deleteIfExists(lines);
        Files.deleteIfExists(java);
    }

    /**
     * A Java log of about {@code bytes} bytes: each record a line with an ISO-8601 timestamp, one in five followed by
     * an exception line and 5 to 30 {@code at} frames, half of those with a {@code Caused by:} section.
     */
    static long writeJavaLog(Path file, long bytes, long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed);
        long written = 0;
        StringBuilder b = new StringBuilder(1 << 20);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (long n = 0; written < bytes; n++) {
                b.append(String.format(Locale.ROOT, "2026-11-27T03:%02d:%02d.%03dZ INFO  [worker-%d] "
                        + "com.example.Service - request n=%d done in %d ms%n", (n / 60000) % 60, (n / 1000) % 60,
                        n % 1000, n % 8, n, n % 997));
                if (rnd.nextInt(5) == 0) {
                    b.append("java.lang.IllegalStateException: failed n=").append(n).append('\n');
                    int frames = 5 + rnd.nextInt(26);
                    for (int k = 0; k < frames; k++) {
                        b.append("\tat com.example.layer").append(k % 7).append(".Handler").append(k)
                                .append(".handle(Handler").append(k).append(".java:").append(10 + k).append(")\n");
                    }
                    if (rnd.nextBoolean()) {
                        b.append("Caused by: java.io.IOException: broken pipe\n\tat java.base/sun.nio.ch.IOUtil"
                                + ".write(IOUtil.java:62)\n\t... ").append(frames).append(" more\n");
                    }
                }
                if (b.length() > (1 << 20) - 8192) {
                    byte[] chunk = b.toString().getBytes(StandardCharsets.US_ASCII);
                    out.write(chunk);
                    written += chunk.length;
                    b.setLength(0);
                }
            }
            byte[] chunk = b.toString().getBytes(StandardCharsets.US_ASCII);
            out.write(chunk);
            written += chunk.length;
        }
        return written;
    }

    private Map<String, Object> jfioRun(String workload, Path input, int rep, String... options) throws IOException {
        Path runDir = Files.createDirectories(work.resolve("records-" + workload + "-" + rep));
        Map<String, Object> r = row("jfio", workload, rep);
        try {
            List<String> args = new ArrayList<>(List.of("ship", "--from", input.toString(), "--to",
                    "dir:" + runDir.resolve("out"), "--state", runDir.resolve("state").toString(), "--once"));
            Collections.addAll(args, options);
            Child c = Child.start(jfio.apply(args.toArray(String[]::new)), runDir.resolve("ship.log"));
            int exit = c.waitFor(TIMEOUT_S);
            List<Path> parts = DirSink.segments(runDir.resolve("out"));
            String problem = exit != 0 ? "exit " + exit + ": " + ShipBench.lastLine(c.log())
                    : workload.equals("ndjson") ? checkNdjson(parts, true) : Verify.compare(input, parts);
            double ship = ShipBench.shipSeconds(c.log());
            if (problem == null && Double.isNaN(ship)) problem = "no event=start and event=stop in the shipper's log";
            measured(r, input, c, problem, parts);
            r.put("ship_seconds", ship);
            if (problem != null) problems.add("records " + workload + " run " + rep + ": " + problem);
            progress("records: %s, run %d: %s s shipping%s", workload, rep, ShipBench.fmt(ship, "%.2f"),
                    problem == null ? "" : ": " + problem);
            return r;
        } finally {
            ShipBench.deleteTree(runDir);
        }
    }

    private Map<String, Object> rsyslogRun(String workload, Path input, int rep) throws IOException {
        Path runDir = Files.createDirectories(work.resolve("records-rsyslog-" + workload + "-" + rep));
        Path out = runDir.resolve("out.log");
        Map<String, Object> r = row("rsyslog", workload, rep);
        boolean json = workload.equals("ndjson");
        try {
            Path conf = configure(runDir, input, out, workload.equals("ndjson"));
            try (Child c = Child.start(Rsyslog.command(rsyslogd, conf, runDir), runDir.resolve("rsyslogd.log"))) {
                // NDJSON: one line per input line; multiline: the input's bytes exactly.
                String problem = waitFor(c, out, json ? Files.size(input) / LogLines.LINE : -1,
                        json ? -1 : Files.size(input), "rsyslogd");
                double wall = c.elapsedSeconds();
                double cpu = c.cpuNow();
                long rss = c.peakRssBytes();
                c.stop();
                if (problem == null) {
                    problem = workload.equals("ndjson") ? checkNdjson(List.of(out), false)
                            : Verify.compare(input, List.of(out));
                }
                measured(r, input, c, problem, List.of(out));
                r.put("wall_seconds", wall);
                r.put("cpu_seconds", Double.isNaN(cpu) ? c.cpuSeconds() : cpu);
                r.put("peak_rss_bytes", rss);
                if (problem != null) problems.add("records rsyslog " + workload + " run " + rep + ": " + problem);
            }
            return r;
        } finally {
            ShipBench.deleteTree(runDir);
        }
    }

    /** syslog-ng writing every line of {@code input} as a JSON object ({@link SyslogNg#configureJson}). */
    private Map<String, Object> syslogNgRun(Path input, int rep) throws IOException {
        Path runDir = Files.createDirectories(work.resolve("records-syslog-ng-ndjson-" + rep));
        Path out = runDir.resolve("out.log");
        Map<String, Object> r = row("syslog-ng", "ndjson", rep);
        try {
            Path conf = SyslogNg.configureJson(syslogNg, runDir, input, out);
            try (Child c = Child.start(SyslogNg.command(syslogNg, conf, runDir), runDir.resolve("syslog-ng.log"))) {
                String problem = waitFor(c, out, Files.size(input) / LogLines.LINE, -1, "syslog-ng");
                double wall = c.elapsedSeconds();
                double cpu = c.cpuNow();
                long rss = c.peakRssBytes();
                c.stop();
                if (problem == null) problem = checkNdjson(List.of(out), false);
                measured(r, input, c, problem, List.of(out));
                r.put("wall_seconds", wall);
                r.put("cpu_seconds", Double.isNaN(cpu) ? c.cpuSeconds() : cpu);
                r.put("peak_rss_bytes", rss);
                if (problem != null) problems.add("records syslog-ng ndjson run " + rep + ": " + problem);
                progress("records: syslog-ng ndjson, run %d: %s s%s", rep, ShipBench.fmt(wall, "%.2f"),
                        problem == null ? "" : ": " + problem);
            }
            return r;
        } finally {
            ShipBench.deleteTree(runDir);
        }
    }

    /**
     * Waits until {@code out} holds {@code records} newlines (counted as the bytes arrive) or, with {@code records}
     * below 0, {@code bytes} bytes; a problem when the peer exits or the output stops growing for 30 s.
     */
    private static String waitFor(Child c, Path out, long records, long bytes, String peer) throws IOException {
        long seen = 0;
        long pos = 0;
        long lastChange = System.nanoTime();
        long deadline = System.nanoTime() + TIMEOUT_S * 1_000_000_000L;
        byte[] buf = new byte[1 << 20];
        while (records >= 0 ? seen < records : pos < bytes) {
            if (Files.exists(out)) {
                try (FileChannel ch = FileChannel.open(out)) {
                    ch.position(pos);
                    int n;
                    while ((n = ch.read(java.nio.ByteBuffer.wrap(buf))) > 0) {
                        for (int i = 0; i < n; i++) {
                            if (buf[i] == '\n') seen++;
                        }
                        pos += n;
                        lastChange = System.nanoTime();
                    }
                }
            }
            if (records >= 0 ? seen >= records : pos >= bytes) break;
            if (!c.process().isAlive()) return peer + " exited: " + ShipBench.lastLine(c.log());
            if (System.nanoTime() > deadline || System.nanoTime() - lastChange > 30_000_000_000L) {
                return "output stopped at " + (records >= 0 ? seen + " of " + records + " records"
                        : pos + " of " + bytes + " bytes");
            }
            ShipBench.sleepQuietly(10);
        }
        return null;
    }

    /**
     * rsyslog reading {@code input} from its start: with {@code json}, every line as a JSON object with the same
     * metadata jfio gives (message, file offset, path, host, read time, input tag, two fields) through a list
     * template with {@code format="json"} properties; otherwise records that start at a timestamp line
     * ({@code startmsg.regex}) written unchanged, their inner newlines kept ({@code escapeLF="off"}).
     */
    static Path configure(Path runDir, Path input, Path out, boolean json) throws IOException {
        Path wd = Files.createDirectories(runDir.resolve("rsyslog-work"));
        String template = json
                ? "template(name=\"out\" type=\"list\") {\n"
                        + "  constant(value=\"{\\\"message\\\":\\\"\") property(name=\"msg\" format=\"json\")\n"
                        + "  constant(value=\"\\\",\\\"offset\\\":\") property(name=\"$!metadata!fileoffset\")\n"
                        + "  constant(value=\",\\\"path\\\":\\\"\") property(name=\"$!metadata!filename\" "
                        + "format=\"json\")\n"
                        + "  constant(value=\"\\\",\\\"host\\\":\\\"\") property(name=\"hostname\" format=\"json\")\n"
                        + "  constant(value=\"\\\",\\\"read_time\\\":\\\"\") property(name=\"timegenerated\" "
                        + "dateFormat=\"rfc3339\")\n"
                        + "  constant(value=\"\\\",\\\"input\\\":\\\"t\\\",\\\"fields\\\":{\\\"service\\\":"
                        + "\\\"bench\\\",\\\"env\\\":\\\"test\\\"}}\\n\")\n"
                        + "}\n"
                : "template(name=\"out\" type=\"string\" string=\"%msg%\\n\")\n";
        String input2 = json
                ? "input(type=\"imfile\" File=\"" + input + "\" Tag=\"t\" readMode=\"0\" freshStartTail=\"off\" "
                        + "addMetadata=\"on\")\n"
                : "input(type=\"imfile\" File=\"" + input + "\" Tag=\"t\" freshStartTail=\"off\" addMetadata=\"off\" "
                        + "startmsg.regex=\"^[0-9]{4}-[0-9]{2}-[0-9]{2}T\" escapeLF=\"off\" readTimeout=\"1\")\n";
        String conf = "global(workDirectory=\"" + wd + "\" maxMessageSize=\"256k\")\n"
                + "module(load=\"imfile\" mode=\"inotify\")\n"
                + template
                + input2
                + "action(type=\"omfile\" file=\"" + out + "\" template=\"out\" asyncWriting=\"on\" "
                + "ioBufferSize=\"1m\" flushOnTXEnd=\"off\")\n";
        Path c = runDir.resolve("rsyslog.conf");
        Files.writeString(c, conf);
        return c;
    }

    /**
     * Parses every line of the output as JSON: line {@code i}'s message must be input line {@code i} (the
     * {@link LogLines} template with its sequence number) and, with {@code offsets}, its offset {@code i * LINE}.
     * Without {@code offsets} (a peer without byte offsets) the order is not checked: every input line must be
     * there once.
     */
    static String checkNdjson(List<Path> parts, boolean offsets) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        List<InputStream> streams = new ArrayList<>();
        for (Path p : parts) streams.add(Files.newInputStream(p));
        long i = 0;
        java.util.BitSet seen = new java.util.BitSet();
        long duplicates = 0;
        try (InputStream in = new SequenceInputStream(Collections.enumeration(streams));
             JsonParser p = mapper.getFactory().createParser(new java.io.BufferedInputStream(in, 1 << 20))) {
            JsonToken t;
            while ((t = p.nextToken()) != null) {
                if (t != JsonToken.START_OBJECT) return "not a JSON object at record " + i;
                String message = null;
                long offset = -1;
                while (p.nextToken() == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    p.nextToken();
                    if (name.equals("message")) {
                        message = p.getText();
                    } else if (name.equals("offset")) {
                        offset = p.getLongValue();
                    } else {
                        p.skipChildren();
                    }
                }
                if (message == null || message.length() != LogLines.LINE - 1) {
                    return "record " + i + " has the wrong message: " + message;
                }
                int seq = Integer.parseInt(message.substring(LogLines.SEQ_OFF, LogLines.SEQ_OFF + LogLines.SEQ_LEN));
                if (offsets && seq != i) return "record " + i + " has the wrong message: " + message;
                if (seen.get(seq)) duplicates++;
                seen.set(seq);
                if (offsets && offset != i * LogLines.LINE) return "record " + i + " has offset " + offset;
                i++;
            }
        } catch (IOException | NumberFormatException | StringIndexOutOfBoundsException e) {
            return "invalid JSON at record " + i + ": " + e.getMessage();
        } finally {
            for (InputStream s : streams) s.close();
        }
        if (duplicates > 0 || seen.cardinality() != seen.length()) {
            return "records missing: " + (seen.length() - seen.cardinality()) + ", duplicated: " + duplicates;
        }
        return null;
    }

    private static Map<String, Object> row(String tool, String workload, int rep) {
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("tool", tool);
        r.put("sink", workload);
        r.put("rep", rep);
        return r;
    }

    private static void measured(Map<String, Object> r, Path input, Child c, String problem, List<Path> parts)
            throws IOException {
        r.put("bytes", Files.size(input));
        long out = 0;
        for (Path p : parts) out += Files.exists(p) ? Files.size(p) : 0;
        r.put("output_bytes", out);
        r.put("wall_seconds", c.elapsedSeconds());
        r.put("cpu_seconds", c.cpuSeconds());
        r.put("peak_rss_bytes", c.peakRssBytes());
        r.put("verified", problem == null ? "checked" : problem);
        r.put("problem", problem);
    }

    /** The report's section: one row per tool and workload (medians of the runs that succeeded). */
    void report(StringBuilder md) {
        md.append("## Records: NDJSON with metadata, multiline Java stack traces\n\n");
        md.append(String.format(Locale.ROOT, "`ndjson`: the single file's %,d lines (%.0f MB) with `--encoding "
                + "ndjson --field service=bench --field env=test` (message, offset, path, host, device, inode, "
                + "read_time, input, fields); rsyslog: imfile with addMetadata and a JSON list template of the "
                + "same fields; syslog-ng: a wildcard-file source and a `$(format-json)` template of the fields it "
                + "has (message, path, host, read_time, input, fields: no offset, device nor inode) into a file "
                + "destination. `multiline`: a Java log of %.0f MB, one record in five an exception with 5-30 "
                + "frames, with `--multiline java`; rsyslog: imfile with startmsg.regex on the timestamp. Both into "
                + "the dir sink (rsyslog: omfile; syslog-ng: file), `--once`, input hot in the page cache. MB/s are "
                + "of input. jfio: *ship* time (start to stop events); rsyslog and syslog-ng: wall time to the "
                + "complete output. Every NDJSON object is parsed and its message (and jfio's offset) compared with "
                + "its input line; multiline "
                + "output is compared byte for byte.%n%n", o.lines(), linesBytes / 1e6, javaBytes / 1e6));
        md.append("| tool | workload | runs | s | MB/s | CPU s | peak RSS MiB | output MB | output | MB/s vs "
                + "rsyslog | MB/s vs syslog-ng |\n|---|---|---:|---:|---:|---:|---:|---:|---|---:|---:|\n");
        List<Map<String, Object>> ok = ShipBench.succeeded(rows);
        for (String w : List.of("ndjson", "multiline")) {
            long in = w.equals("ndjson") ? linesBytes : javaBytes;
            double rs = ShipBench.median(ok, "rsyslog", w, "wall_seconds");
            double ng = ShipBench.median(ok, "syslog-ng", w, "wall_seconds");
            for (String tool : List.of("jfio", "rsyslog", "syslog-ng")) {
                List<Map<String, Object>> all = ShipBench.rows(rows, tool, w);
                if (all.isEmpty()) continue;
                int failed = all.size() - ShipBench.rows(ok, tool, w).size();
                double s = ShipBench.median(ok, tool, w, tool.equals("jfio") ? "ship_seconds" : "wall_seconds");
                double cpu = ShipBench.median(ok, tool, w, "cpu_seconds");
                double outMb = ShipBench.median(ok, tool, w, "output_bytes") / 1e6;
                long rss = ShipBench.rows(ok, tool, w).stream().mapToLong(m -> (Long) m.get("peak_rss_bytes"))
                        .max().orElse(0);
                String verified = all.stream().map(m -> (String) m.get("problem")).filter(v -> v != null)
                        .findFirst().orElse("checked");
                md.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
                        tool, w,
                        failed == 0 ? all.size() : all.size() + " (" + failed + " failed)",
                        ShipBench.fmt(s, "%.2f"), ShipBench.fmt(in / 1e6 / s, "%.0f"), ShipBench.fmt(cpu, "%.2f"),
                        rss > 0 ? String.format(Locale.ROOT, "%.0f", rss / (double) (1 << 20)) : "-",
                        ShipBench.fmt(outMb, "%.0f"), verified,
                        tool.equals("jfio") ? ShipBench.fmt(rs / s, "%.1fx") : "-",
                        tool.equals("jfio") ? ShipBench.fmt(ng / s, "%.1fx") : "-"));
            }
        }
        md.append("\n\"MB/s vs rsyslog\" (syslog-ng): the peer's time divided by jfio's (above 1 is faster); \"-\" "
                + "where the peer did not run. jfio's NDJSON output "
                + "is about three times its input: the dir sink writes and fsyncs that, so on a slow disk the "
                + "disk, not the encoding, sets the pace (compare the disk's durable write speed above).\n\n");
    }

    /** PASS/FAIL of the record targets; nothing when the workload did not run. */
    List<String> verdicts() {
        List<String> v = new ArrayList<>();
        List<Map<String, Object>> ok = ShipBench.succeeded(rows);
        for (String w : List.of("ndjson", "multiline")) {
            if (ShipBench.rows(rows, "jfio", w).isEmpty()) continue;
            double target = w.equals("ndjson") ? TARGET_NDJSON_MBPS : TARGET_MULTILINE_MBPS;
            String what = w.equals("ndjson") ? "ndjson with metadata into the dir sink"
                    : "multiline Java log into the dir sink";
            String t = String.format(Locale.ROOT, "(target >= %.0f MB/s)", target);
            double s = ShipBench.median(ok, "jfio", w, "ship_seconds");
            if (Double.isNaN(s)) {
                v.add("FAIL: " + what + ": " + ShipBench.RUN_FAILED + " " + t);
                continue;
            }
            double mbps = (w.equals("ndjson") ? linesBytes : javaBytes) / 1e6 / s;
            long in = w.equals("ndjson") ? linesBytes : javaBytes;
            StringBuilder peers = new StringBuilder();
            for (String peer : List.of("rsyslog", "syslog-ng")) {
                double ps = ShipBench.median(ok, peer, w, "wall_seconds");
                if (!Double.isNaN(ps)) peers.append(String.format(Locale.ROOT, "; %s %.0f MB/s", peer, in / 1e6 / ps));
            }
            v.add(String.format(Locale.ROOT, "%s: %s: %.0f MB/s %s%s", mbps >= target ? "PASS" : "FAIL", what, mbps,
                    t, peers));
        }
        return v;
    }

    private void progress(String format, Object... args) {
        err.println("bench ship: " + String.format(Locale.ROOT, format, args));
        err.flush();
    }
}
