package io.jfio.cli;

import io.jfio.bench.ship.S3Bench;
import io.jfio.bench.ship.ShipBench;
import io.jfio.bench.ship.ShipBenchOptions;
import io.jfio.bench.ship.torture.S3Server;
import io.jfio.bench.ship.torture.Torture;
import io.jfio.bench.ship.torture.TortureOptions;
import io.jfio.bench.ship.torture.TortureTable;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code jfio bench ship}: the shipper against its targets and against rsyslog's imfile in the same run
 * ({@link ShipBench}, in jfio-bench); this class turns the options into {@link ShipBenchOptions} and the result into
 * an exit code.
 *
 * <p>With {@code --torture} it runs the shipper's crash and rotation test instead ({@link Torture}): exit
 * {@link ExitCodes#OK} when every sink passed, {@link ExitCodes#FAILED} when one failed.
 *
 * <p>Not thread-safe; one instance per command line. Exits {@link ExitCodes#OK} when every run delivered exactly
 * what was written (the targets' PASS/FAIL lines are results, not errors), {@link ExitCodes#FAILED} when a delivery
 * was wrong or incomplete or a run failed, {@link ExitCodes#USAGE} for bad options or an unusable {@code --dir}.
 */
@Command(name = "ship", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = {
            "jfio ship against its targets and against rsyslog (imfile) and syslog-ng (wildcard-file), in one run.",
            "",
            "single: one file of 5,000,000 92-byte lines (460 MB), hot in the page cache, shipped with --once to "
                    + "the dir sink and to a loopback TCP receiver (3 runs each, median), and read by rsyslog "
                    + "(imfile -> omfile); every delivery compared byte for byte. records: the same file as "
                    + "NDJSON with metadata and two fields into the dir sink, beside rsyslog's JSON list template "
                    + "and syslog-ng's $(format-json) template, and a Java log with --multiline java beside rsyslog's "
                    + "startmsg.regex; every object parsed. latency: 100 files appended to at "
                    + "10,000 lines/s in all, append-to-delivered percentiles to TCP and to the dir sink, and "
                    + "rsyslog (imfile -> omfwd) and syslog-ng (wildcard-file -> network tcp). wide: the same with "
                    + "1,000 files at 100,000 lines/s (10 s measured). throughput: the 100 files appended to "
                    + "as fast as one thread can. "
                    + "idle: 10,000 shipped files, nothing changes: the shipper's CPU share. Reports MB/s, lines/s, "
                    + "CPU seconds, peak RSS, PASS/FAIL per target and ratios to the peers in report.md and "
                    + "results.json under --out; about 5 minutes. rsyslog is installed with apt-get when missing "
                    + "and this is root; syslog-ng, whose package conflicts with rsyslog's, is not installed: when it "
                    + "is not on PATH its packages are fetched with apt-get download and unpacked into "
                    + "$XDG_CACHE_HOME/jfio/syslog-ng (default ~/.cache/jfio/syslog-ng) and it runs from there. "
                    + "Files go in a jfio-bench-ship-* directory under --dir and are removed at "
                    + "the end, also on errors and Ctrl-C; so are the child processes. Progress goes to stderr.",
            "",
            "--torture: instead, writers append numbered records while their files are rotated (rename, "
                    + "copytruncate, truncate, delete) and the shipper is killed with SIGKILL again and again; then "
                    + "every sink's content is counted (lost, duplicated, damaged) and judged: PASS when nothing is "
                    + "lost or damaged and, for dir and s3, nothing duplicated (tcp and kafka: at most max-in-flight "
                    + "plus one read buffer per kill or outage). With --outages the sink's server is paused "
                    + "(SIGSTOP) for 0.3-4 s every 1-6 s while the writers write. Exits 1 when a sink fails.",
            "",
            "--sink s3: instead, jfio ship --once into a local MinIO beside 'mc cp --recursive' of the same files "
                    + "to the same server, from one file of 256 MB and from 100 files of 2.5 MB: throughput, CPU, "
                    + "peak RSS, the ratio to mc, and every byte jfio stored checked to be in exactly one object. "
                    + "Needs minio and mc (go install github.com/minio/minio@latest github.com/minio/mc@latest). "
                    + "Exits 1 when jfio stored something wrongly, 3 when minio or mc is missing.",
        })
public final class ShipBenchCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--dir", paramLabel = "DIR", description = "Where the test files go (default: the current "
            + "directory). Not tmpfs unless --allow-tmpfs.")
    private Path dir;

    @Option(names = "--allow-tmpfs", description = "Measure on tmpfs anyway (the dir sink's fsync then costs "
            + "nothing).")
    private boolean allowTmpfs;

    @Option(names = "--out", paramLabel = "DIR", description = "Report directory (default: "
            + "jfio-report/ship-<timestamp>).")
    private Path out;

    @Option(names = "--json", description = "Print results.json to stdout instead of report.md.")
    private boolean json;

    @Option(names = "--quick", description = "The standard sizes with short measurements, about 3-4 minutes (the "
            + "default).")
    private boolean quick;

    @Option(names = "--full", description = "Longer measurements: 5 runs per single-file cell, 60 s latency and "
            + "idle windows, 30 s throughput.")
    private boolean full;

    @Option(names = "--no-rsyslog", description = "Do not run rsyslog.")
    private boolean noRsyslog;

    @Option(names = "--no-syslog-ng", description = "Do not run syslog-ng.")
    private boolean noSyslogNg;

    @Option(names = "--floor", description = "Latency runs: also run min-shipper, a C program (built with cc) that "
            + "does only what any shipper must per appended line (a wake-up, a read, a send; no checkpoints, no "
            + "acknowledgements): the least CPU per line this machine allows, beside jfio and the peers.")
    private boolean floor;

    @Option(names = "--shipper-cpus", paramLabel = "LIST", description = "Start every shipper (jfio, the peers, "
            + "min-shipper) on these CPUs, as taskset -c takes them; with the benchmark itself on others (e.g. "
            + "taskset -c 0 jfio bench ship --shipper-cpus 1), every tool runs with the same placement. By default "
            + "the scheduler places them, and on a small machine where each one lands moves the CPU per line by up "
            + "to twice, for every tool.")
    private String shipperCpus;

    @Option(names = "--no-install", description = "Do not install rsyslog nor fetch syslog-ng when they are "
            + "missing.")
    private boolean noInstall;

    @Option(names = "--workloads", paramLabel = "LIST", split = ",", description = "single, records (ndjson "
            + "and multiline), latency, wide (latency at ten times the files and the rate), throughput, idle "
            + "(default all).")
    private List<String> workloads;

    @Option(names = "--lines", paramLabel = "N", description = "Lines of the single file (default 5000000).")
    private Long lines;

    @Option(names = "--reps", paramLabel = "N", description = "Runs per single-file cell (default 3).")
    private Integer reps;

    @Option(names = "--files", paramLabel = "N", description = "Files of the latency and throughput runs (default "
            + "100).")
    private Integer files;

    @Option(names = "--rate", paramLabel = "N", description = "Lines per second of the latency runs (default "
            + "10000).")
    private Integer rate;

    @Option(names = "--seconds", paramLabel = "N", description = "Measured seconds of each latency run (default "
            + "20).")
    private Integer seconds;

    @Option(names = "--idle-files", paramLabel = "DIRSxFILES", description = "The idle tree (default 100x100).")
    private String idleTree;

    @Option(names = "--idle-seconds", paramLabel = "N", description = "Seconds the idle shipper is watched "
            + "(default 15).")
    private Integer idleSeconds;

    @Option(names = "--sink", paramLabel = "KIND", description = "s3: the object-storage benchmark against mc "
            + "(see above); the other options but --dir do not apply.")
    private String sink;

    @Option(names = "--torture", description = "Instead of measuring: writers append numbered records while their "
            + "files are rotated and the shipper is killed with SIGKILL again and again; then count what the sink "
            + "holds: lost, duplicated, damaged. With --torture, --seconds is how long the writers write (default "
            + "40), --rate records/s per writer (default 1000), --dir the work directory (default a temporary one).")
    private boolean torture;

    @Option(names = "--kills", paramLabel = "N", description = "--torture: SIGKILLs of the shipper per sink "
            + "(default 12).")
    private Integer kills;

    @Option(names = "--writers", paramLabel = "N", description = "--torture: writers, one file each (default 4).")
    private Integer writers;

    @Option(names = "--modes", paramLabel = "LIST", split = ",", description = "--torture: rotation modes: rename, "
            + "copytruncate, truncate, delete, or all (default).")
    private List<String> modes;

    @Option(names = "--sinks", paramLabel = "LIST", split = ",", description = "--torture: dir, tcp, kafka, s3 "
            + "(default dir,tcp, and kafka when --kafka-bootstrap is given, s3 when --s3-endpoint is).")
    private List<String> sinks;

    @Option(names = "--kafka-bootstrap", paramLabel = "HOST:PORT", description = "--torture: the Kafka broker for "
            + "the kafka sink.")
    private String kafkaBootstrap;

    @Option(names = "--s3-endpoint", paramLabel = "URL", description = "--torture: the S3-compatible server for the "
            + "s3 sink; credentials from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (else the AWS SDK's chain).")
    private String s3Endpoint;

    @Option(names = "--s3-bucket", paramLabel = "NAME", description = "--torture: an existing bucket for the s3 "
            + "sink; each run writes under a prefix of its own.")
    private String s3Bucket;

    @Option(names = "--outages", description = "--torture: pause the sink's server now and then (SIGSTOP, SIGCONT): "
            + "the tcp sink's receiver, or the process --server-pid names for kafka and s3.")
    private boolean outages;

    @Option(names = "--server-pid", paramLabel = "PID", description = "--torture --outages: the Kafka broker's or "
            + "S3 server's process.")
    private Long serverPid;

    @Option(names = "--seed", paramLabel = "N", description = "--torture: seed of every random choice (default: "
            + "random, printed).")
    private Long seed;

    @Override
    public Integer call() {
        CliException.requireSupportedPlatform();
        if (sink != null) return s3();
        if (torture) return torture();
        if (kills != null || writers != null || modes != null || sinks != null || kafkaBootstrap != null
                || seed != null || s3Endpoint != null || s3Bucket != null || outages || serverPid != null) {
            throw new CliException(ExitCodes.USAGE, "--kills, --writers, --modes, --sinks, --kafka-bootstrap, "
                    + "--s3-endpoint, --s3-bucket, --outages, --server-pid and --seed go with --torture");
        }
        ShipBenchOptions o = options();
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter stdout = spec.commandLine().getOut();
        try {
            ShipBench.Result r = ShipBench.run(o, err);
            stdout.print(Files.readString(json ? r.json() : r.report()));
            if (!json) stdout.println("\nreport: " + r.report() + " (also " + r.json().getFileName() + ")");
            stdout.flush();
            if (!r.problems().isEmpty()) {
                throw new CliException(ExitCodes.FAILED, r.problems().size() + " run(s) delivered wrongly or "
                        + "failed: " + r.problems().get(0));
            }
            return ExitCodes.OK;
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILED, "benchmark failed: " + e.getMessage());
        }
    }

    private Integer s3() {
        if (!sink.equals("s3")) throw new CliException(ExitCodes.USAGE, "invalid --sink: " + sink + " (s3)");
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter stdout = spec.commandLine().getOut();
        try {
            S3Bench.Result r = S3Bench.run(new S3Bench.Options(dir != null ? dir : Path.of(""),
                    CopyBenchCommand.jfioCommand(), 256_000_000L, 100, 2_500_000L), err);
            stdout.print(r.report());
            stdout.flush();
            if (!r.ok()) throw new CliException(ExitCodes.FAILED, "jfio ship stored something wrongly (see above)");
            return ExitCodes.OK;
        } catch (IllegalStateException e) {
            throw new CliException(ExitCodes.ENVIRONMENT, e.getMessage());
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILED, "s3 benchmark failed: " + e.getMessage());
        }
    }

    private Integer torture() {
        TortureOptions o = tortureOptions();
        PrintWriter err = spec.commandLine().getErr();
        PrintWriter stdout = spec.commandLine().getOut();
        Torture.Result r;
        try {
            r = Torture.run(o, err);
        } catch (IOException e) {
            throw new CliException(ExitCodes.FAILED, "torture run failed: " + e.getMessage());
        }
        stdout.print(TortureTable.format(r));
        stdout.flush();
        return r.pass() ? ExitCodes.OK : ExitCodes.FAILED;
    }

    TortureOptions tortureOptions() {
        if (out != null || json || quick || full || noRsyslog || noInstall || workloads != null || lines != null
                || reps != null || files != null || idleTree != null || idleSeconds != null || allowTmpfs) {
            throw new CliException(ExitCodes.USAGE, "--torture takes --seconds, --kills, --writers, --rate, --modes, "
                    + "--sinks, --kafka-bootstrap, --s3-endpoint, --s3-bucket, --outages, --server-pid, --seed and "
                    + "--dir only");
        }
        List<String> sinkList = new ArrayList<>(List.of("dir", "tcp"));
        if (kafkaBootstrap != null) sinkList.add("kafka");
        if (s3Endpoint != null) sinkList.add("s3");
        if (sinks != null) sinkList = sinks.stream().map(String::trim).toList();
        if (kafkaBootstrap != null && !kafkaBootstrap.matches("[^/\\s]+:\\d+(,[^/\\s]+:\\d+)*")) {
            throw new CliException(ExitCodes.USAGE, "invalid --kafka-bootstrap: " + kafkaBootstrap
                    + " (HOST:PORT[,HOST:PORT...])");
        }
        long s = seed != null ? seed : new java.util.SplittableRandom().nextLong() & 0x7fff_ffff_ffffL;
        try {
            S3Server s3 = null;
            if (s3Endpoint != null || s3Bucket != null) {
                String key = System.getenv("AWS_ACCESS_KEY_ID");
                String secret = System.getenv("AWS_SECRET_ACCESS_KEY");
                s3 = new S3Server(s3Endpoint, s3Bucket, key == null || secret == null ? null : key,
                        key == null || secret == null ? null : secret);
            }
            return new TortureOptions(dir, seconds != null ? seconds : 40, kills != null ? kills : 12,
                    writers != null ? writers : 4, rate != null ? rate : 1000, TortureOptions.parseModes(modes),
                    sinkList, kafkaBootstrap, s3, outages, serverPid != null ? serverPid : 0, s, 200, 3000, 300,
                    TortureOptions.thisJvm(Main.class.getName()));
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        }
    }

    ShipBenchOptions options() {
        if (quick && full) throw new CliException(ExitCodes.USAGE, "--quick and --full exclude each other");
        Path outDir = out != null ? out : Path.of("jfio-report", "ship-"
                + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")));
        try {
            ShipBenchOptions o = ShipBenchOptions.defaults(dir != null ? dir : Path.of("."), outDir,
                    CopyBenchCommand.jfioCommand());
            if (full) o = o.full();
            if (workloads != null) o = o.withWorkloads(new LinkedHashSet<>(workloads));
            o = o.withPeers(!noRsyslog, !noSyslogNg, !noInstall).withAllowTmpfs(allowTmpfs).withFloor(floor)
                    .withShipperCpus(shipperCpus);
            if (lines != null || reps != null || files != null || rate != null || seconds != null || idleTree != null
                    || idleSeconds != null) {
                int[] tree = idleTree != null ? ShipBenchOptions.parseIdleTree(idleTree)
                        : new int[] {o.idleDirs(), o.idleFiles()};
                o = o.withSizes(lines != null ? lines : o.lines(), reps != null ? reps : o.reps(),
                        files != null ? files : o.files(), rate != null ? rate : o.rate(),
                        seconds != null ? java.time.Duration.ofSeconds(seconds) : o.latency(), o.warmup(),
                        o.throughput(), tree[0], tree[1],
                        idleSeconds != null ? java.time.Duration.ofSeconds(idleSeconds) : o.idle());
            }
            return o;
        } catch (IllegalArgumentException e) {
            throw new CliException(ExitCodes.USAGE, e.getMessage());
        }
    }
}
