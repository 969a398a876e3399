package io.jfio.bench.uring;

/**
 * A way to read 4 KiB blocks at random offsets: jfio's engines, the JDK's APIs, and fio as the reference.
 */
public enum Method {
    /** jfio's io_uring engine, IoOp.read, one submitting thread keeping {@code depth} requests in flight. */
    URING("jfio io_uring", true, true, false),
    /** The same with registered buffers (BufferPool.registerWith, IoOp.readFixed). */
    URING_FIXED("jfio io_uring readFixed", true, true, false),
    /** jfio's thread engine with {@code depth} threads, driven the same way. */
    THREADS("jfio threads", true, true, false),
    /** FileChannel.read(direct ByteBuffer, position) on one thread: depth 1. */
    FILECHANNEL("FileChannel 1 thread", false, true, false),
    /** FileChannel.read on N platform threads sharing one channel: depth N. */
    FILECHANNEL_THREADS("FileChannel N threads", false, true, false),
    /** RandomAccessFile seek + readFully into a byte[] on one thread (buffered only). */
    RAF("RandomAccessFile", false, false, false),
    /** Random 4 KiB copies out of an mmap'ed file on one thread (buffered only). */
    MMAP("mmap", false, false, false),
    /** fio --ioengine=io_uring at the same depth. */
    FIO_URING("fio io_uring", true, true, true),
    /** fio --ioengine=psync at depth 1: the cross-check for FileChannel on one thread. */
    FIO_PSYNC("fio psync", false, true, true);

    private final String label;
    private final boolean deep;
    private final boolean direct;
    private final boolean fio;

    Method(String label, boolean deep, boolean direct, boolean fio) {
        this.label = label;
        this.deep = deep;
        this.direct = direct;
        this.fio = fio;
    }

    /** The name printed in reports. */
    public String label() {
        return label;
    }

    /** True when the method runs at every requested queue depth (asynchronous engines). */
    public boolean takesDepth() {
        return deep;
    }

    /** True when the method can use O_DIRECT. */
    public boolean supportsDirect() {
        return direct;
    }

    /** True for fio's rows. */
    public boolean isFio() {
        return fio;
    }

    /** True for jfio's io_uring rows. */
    public boolean isJfioUring() {
        return this == URING || this == URING_FIXED;
    }

    @Override
    public String toString() {
        return label;
    }
}
