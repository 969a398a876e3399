package io.jfio.bench.verdict;

/**
 * The code a user writes to use a contender, and where it is documented: the JDK's javadoc, or a source file of
 * jfio (a path relative to the source tree).
 *
 * <p>Immutable.
 *
 * @param code the call, e.g. {@code "FileChannel.read(ByteBuffer, long)"}
 * @param link a URL or a path relative to the jfio source tree
 */
public record Call(String code, String link) {
    private static final String JDK = "https://docs.oracle.com/en/java/javase/25/docs/api/java.base/";
    private static final String FC = JDK + "java/nio/channels/FileChannel.html";
    private static final String CORE = "jfio-core/src/main/java/io/jfio/core/";

    public static final Call FILECHANNEL_READ = new Call("FileChannel.read(ByteBuffer, long)",
            FC + "#read(java.nio.ByteBuffer,long)");
    public static final Call FILECHANNEL_READ_THREADS = new Call("FileChannel.read(ByteBuffer, long) on N threads",
            FC + "#read(java.nio.ByteBuffer,long)");
    public static final Call FILECHANNEL_WRITE = new Call("FileChannel.write(ByteBuffer, long) + force(false)",
            FC + "#force(boolean)");
    public static final Call FILECHANNEL_MAP = new Call("FileChannel.map(MapMode, long, long, Arena)",
            FC + "#map(java.nio.channels.FileChannel.MapMode,long,long,java.lang.foreign.Arena)");
    public static final Call FILECHANNEL_MAP_FORCE = new Call("FileChannel.map(READ_WRITE, ...) + "
            + "MemorySegment.force()", FC + "#map(java.nio.channels.FileChannel.MapMode,long,long,"
            + "java.lang.foreign.Arena)");
    public static final Call RANDOM_ACCESS_FILE = new Call("RandomAccessFile.seek(long) + readFully(byte[])",
            JDK + "java/io/RandomAccessFile.html#readFully(byte%5B%5D)");
    public static final Call FILES_COPY = new Call("Files.copy(Path, Path, CopyOption...)",
            JDK + "java/nio/file/Files.html#copy(java.nio.file.Path,java.nio.file.Path,java.nio.file.CopyOption...)");
    public static final Call TRANSFER_TO = new Call("FileChannel.transferTo(long, long, WritableByteChannel)",
            FC + "#transferTo(long,long,java.nio.channels.WritableByteChannel)");
    public static final Call TRANSFER_FROM = new Call("FileChannel.transferFrom(ReadableByteChannel, long, long)",
            FC + "#transferFrom(java.nio.channels.ReadableByteChannel,long,long)");
    public static final Call FILECHANNEL_COPY_LOOP = new Call("FileChannel.read(ByteBuffer) / write(ByteBuffer) "
            + "loop", FC + "#read(java.nio.ByteBuffer)");
    public static final Call STREAM_LOOP = new Call("InputStream.read(byte[]) / OutputStream.write loop",
            JDK + "java/io/InputStream.html#read(byte%5B%5D)");
    public static final Call WATCH_SERVICE = new Call("FileSystem.newWatchService() + Path.register(...)",
            JDK + "java/nio/file/WatchService.html");
    public static final Call JFIO_READ_ASYNC = new Call("IoFile.readAsync(MemorySegment, long), several in flight",
            CORE + "file/IoFile.java");
    public static final Call JFIO_WRITE_ASYNC = new Call("IoFile.writeAsync(MemorySegment, long), several in "
            + "flight, then IoFile.datasync()", CORE + "file/IoFile.java");
    public static final Call JFIO_READ_FIXED = new Call("IoOp.readFixed on a BufferPool registered with the ring "
            + "(IoEngine.submit)", CORE + "engine/IoOp.java");
    public static final Call JFIO_THREADS = new Call("IoFile.open(new ThreadEngine(n), path, ...) + readAsync",
            CORE + "engine/ThreadEngine.java");
    public static final Call JFIO_COPY_RANGE = new Call("IoFile.copyRange(long, IoFile, long, long) "
            + "(copy_file_range) in a loop", CORE + "file/IoFile.java");
    public static final Call JFIO_TREE_COPY = new Call("TreeCopy.of(sources, target, CopyOptions, listener).run()",
            CORE + "copy/TreeCopy.java");
    public static final Call JFIO_URING_COPY = new Call("IoOp.read then IoOp.write per slot on a UringEngine "
            + "(as jfio-bench's UringCopy)", "jfio-bench/src/main/java/io/jfio/bench/suite/experiments/UringCopy.java");
    public static final Call JFIO_WATCHER = new Call("FileWatchers.open() + watchTree(dir) + poll(timeout)",
            CORE + "watch/FileWatchers.java");
    public static final Call JFIO_POLLING = new Call("new PollingWatcher(interval, reason) + watchTree(dir) + "
            + "poll(timeout)",
            CORE + "watch/PollingWatcher.java");
    public static final Call NATIVE = new Call("a direct system call through LibC (no public jfio API)",
            CORE + "sys/LibC.java");

    /** A contender doing this call. */
    public Contender contender(String name, boolean jdkDefault, double[] samples) {
        return new Contender(name, code, link, jdkDefault, samples);
    }
}
