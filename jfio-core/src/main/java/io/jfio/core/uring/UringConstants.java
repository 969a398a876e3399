package io.jfio.core.uring;

/**
 * io_uring constants from linux/io_uring.h (checked against the Linux 6.1 UAPI header). Flags are ints and longs
 * as the kernel declares them, never narrowed to bytes.
 *
 * <p>Thread-safe; constants only.
 */
public final class UringConstants {
    // enum io_uring_op
    public static final int IORING_OP_NOP = 0;                 // IORING_OP_NOP in io_uring.h
    public static final int IORING_OP_READV = 1;               // IORING_OP_READV
    public static final int IORING_OP_WRITEV = 2;              // IORING_OP_WRITEV
    public static final int IORING_OP_FSYNC = 3;               // IORING_OP_FSYNC
    public static final int IORING_OP_READ_FIXED = 4;          // IORING_OP_READ_FIXED
    public static final int IORING_OP_WRITE_FIXED = 5;         // IORING_OP_WRITE_FIXED
    public static final int IORING_OP_POLL_ADD = 6;            // IORING_OP_POLL_ADD
    public static final int IORING_OP_POLL_REMOVE = 7;         // IORING_OP_POLL_REMOVE
    public static final int IORING_OP_SYNC_FILE_RANGE = 8;     // IORING_OP_SYNC_FILE_RANGE
    public static final int IORING_OP_SENDMSG = 9;             // IORING_OP_SENDMSG
    public static final int IORING_OP_RECVMSG = 10;            // IORING_OP_RECVMSG
    public static final int IORING_OP_TIMEOUT = 11;            // IORING_OP_TIMEOUT
    public static final int IORING_OP_TIMEOUT_REMOVE = 12;     // IORING_OP_TIMEOUT_REMOVE
    public static final int IORING_OP_ACCEPT = 13;             // IORING_OP_ACCEPT
    public static final int IORING_OP_ASYNC_CANCEL = 14;       // IORING_OP_ASYNC_CANCEL
    public static final int IORING_OP_LINK_TIMEOUT = 15;       // IORING_OP_LINK_TIMEOUT
    public static final int IORING_OP_CONNECT = 16;            // IORING_OP_CONNECT
    public static final int IORING_OP_FALLOCATE = 17;          // IORING_OP_FALLOCATE
    public static final int IORING_OP_OPENAT = 18;             // IORING_OP_OPENAT
    public static final int IORING_OP_CLOSE = 19;              // IORING_OP_CLOSE
    public static final int IORING_OP_FILES_UPDATE = 20;       // IORING_OP_FILES_UPDATE
    public static final int IORING_OP_STATX = 21;              // IORING_OP_STATX
    public static final int IORING_OP_READ = 22;               // IORING_OP_READ
    public static final int IORING_OP_WRITE = 23;              // IORING_OP_WRITE
    public static final int IORING_OP_FADVISE = 24;            // IORING_OP_FADVISE
    public static final int IORING_OP_MADVISE = 25;            // IORING_OP_MADVISE
    public static final int IORING_OP_SEND = 26;               // IORING_OP_SEND
    public static final int IORING_OP_RECV = 27;               // IORING_OP_RECV
    public static final int IORING_OP_OPENAT2 = 28;            // IORING_OP_OPENAT2
    public static final int IORING_OP_EPOLL_CTL = 29;          // IORING_OP_EPOLL_CTL
    public static final int IORING_OP_SPLICE = 30;             // IORING_OP_SPLICE
    public static final int IORING_OP_PROVIDE_BUFFERS = 31;    // IORING_OP_PROVIDE_BUFFERS
    public static final int IORING_OP_REMOVE_BUFFERS = 32;     // IORING_OP_REMOVE_BUFFERS
    public static final int IORING_OP_TEE = 33;                // IORING_OP_TEE
    public static final int IORING_OP_SHUTDOWN = 34;           // IORING_OP_SHUTDOWN
    public static final int IORING_OP_RENAMEAT = 35;           // IORING_OP_RENAMEAT
    public static final int IORING_OP_UNLINKAT = 36;           // IORING_OP_UNLINKAT
    public static final int IORING_OP_MKDIRAT = 37;            // IORING_OP_MKDIRAT
    public static final int IORING_OP_SYMLINKAT = 38;          // IORING_OP_SYMLINKAT
    public static final int IORING_OP_LINKAT = 39;             // IORING_OP_LINKAT
    public static final int IORING_OP_MSG_RING = 40;           // IORING_OP_MSG_RING
    public static final int IORING_OP_FSETXATTR = 41;          // IORING_OP_FSETXATTR
    public static final int IORING_OP_SETXATTR = 42;           // IORING_OP_SETXATTR
    public static final int IORING_OP_FGETXATTR = 43;          // IORING_OP_FGETXATTR
    public static final int IORING_OP_GETXATTR = 44;           // IORING_OP_GETXATTR
    public static final int IORING_OP_SOCKET = 45;             // IORING_OP_SOCKET
    public static final int IORING_OP_URING_CMD = 46;          // IORING_OP_URING_CMD
    public static final int IORING_OP_SEND_ZC = 47;            // IORING_OP_SEND_ZC
    public static final int IORING_OP_SENDMSG_ZC = 48;         // IORING_OP_SENDMSG_ZC

    // sqe->flags
    public static final int IOSQE_FIXED_FILE = 1 << 0;         // IOSQE_FIXED_FILE
    public static final int IOSQE_IO_DRAIN = 1 << 1;           // IOSQE_IO_DRAIN
    public static final int IOSQE_IO_LINK = 1 << 2;            // IOSQE_IO_LINK
    public static final int IOSQE_IO_HARDLINK = 1 << 3;        // IOSQE_IO_HARDLINK
    public static final int IOSQE_ASYNC = 1 << 4;              // IOSQE_ASYNC
    public static final int IOSQE_BUFFER_SELECT = 1 << 5;      // IOSQE_BUFFER_SELECT
    public static final int IOSQE_CQE_SKIP_SUCCESS = 1 << 6;   // IOSQE_CQE_SKIP_SUCCESS

    // io_uring_setup() flags
    public static final int IORING_SETUP_IOPOLL = 1 << 0;          // IORING_SETUP_IOPOLL
    public static final int IORING_SETUP_SQPOLL = 1 << 1;          // IORING_SETUP_SQPOLL
    public static final int IORING_SETUP_SQ_AFF = 1 << 2;          // IORING_SETUP_SQ_AFF
    public static final int IORING_SETUP_CQSIZE = 1 << 3;          // IORING_SETUP_CQSIZE
    public static final int IORING_SETUP_CLAMP = 1 << 4;           // IORING_SETUP_CLAMP
    public static final int IORING_SETUP_ATTACH_WQ = 1 << 5;       // IORING_SETUP_ATTACH_WQ
    public static final int IORING_SETUP_R_DISABLED = 1 << 6;      // IORING_SETUP_R_DISABLED
    public static final int IORING_SETUP_SUBMIT_ALL = 1 << 7;      // IORING_SETUP_SUBMIT_ALL
    public static final int IORING_SETUP_COOP_TASKRUN = 1 << 8;    // IORING_SETUP_COOP_TASKRUN
    public static final int IORING_SETUP_TASKRUN_FLAG = 1 << 9;    // IORING_SETUP_TASKRUN_FLAG
    public static final int IORING_SETUP_SQE128 = 1 << 10;         // IORING_SETUP_SQE128
    public static final int IORING_SETUP_CQE32 = 1 << 11;          // IORING_SETUP_CQE32
    public static final int IORING_SETUP_SINGLE_ISSUER = 1 << 12;  // IORING_SETUP_SINGLE_ISSUER
    public static final int IORING_SETUP_DEFER_TASKRUN = 1 << 13;  // IORING_SETUP_DEFER_TASKRUN

    // io_uring_enter() flags
    public static final int IORING_ENTER_GETEVENTS = 1 << 0;       // IORING_ENTER_GETEVENTS
    public static final int IORING_ENTER_SQ_WAKEUP = 1 << 1;       // IORING_ENTER_SQ_WAKEUP
    public static final int IORING_ENTER_SQ_WAIT = 1 << 2;         // IORING_ENTER_SQ_WAIT
    public static final int IORING_ENTER_EXT_ARG = 1 << 3;         // IORING_ENTER_EXT_ARG
    public static final int IORING_ENTER_REGISTERED_RING = 1 << 4; // IORING_ENTER_REGISTERED_RING

    // io_uring_params->features
    public static final int IORING_FEAT_SINGLE_MMAP = 1 << 0;      // IORING_FEAT_SINGLE_MMAP
    public static final int IORING_FEAT_NODROP = 1 << 1;           // IORING_FEAT_NODROP
    public static final int IORING_FEAT_SUBMIT_STABLE = 1 << 2;    // IORING_FEAT_SUBMIT_STABLE
    public static final int IORING_FEAT_RW_CUR_POS = 1 << 3;       // IORING_FEAT_RW_CUR_POS
    public static final int IORING_FEAT_CUR_PERSONALITY = 1 << 4;  // IORING_FEAT_CUR_PERSONALITY
    public static final int IORING_FEAT_FAST_POLL = 1 << 5;        // IORING_FEAT_FAST_POLL
    public static final int IORING_FEAT_POLL_32BITS = 1 << 6;      // IORING_FEAT_POLL_32BITS
    public static final int IORING_FEAT_SQPOLL_NONFIXED = 1 << 7;  // IORING_FEAT_SQPOLL_NONFIXED
    public static final int IORING_FEAT_EXT_ARG = 1 << 8;          // IORING_FEAT_EXT_ARG
    public static final int IORING_FEAT_NATIVE_WORKERS = 1 << 9;   // IORING_FEAT_NATIVE_WORKERS
    public static final int IORING_FEAT_RSRC_TAGS = 1 << 10;       // IORING_FEAT_RSRC_TAGS
    public static final int IORING_FEAT_CQE_SKIP = 1 << 11;        // IORING_FEAT_CQE_SKIP
    public static final int IORING_FEAT_LINKED_FILE = 1 << 12;     // IORING_FEAT_LINKED_FILE

    // sq_ring->flags
    public static final int IORING_SQ_NEED_WAKEUP = 1 << 0;        // IORING_SQ_NEED_WAKEUP
    public static final int IORING_SQ_CQ_OVERFLOW = 1 << 1;        // IORING_SQ_CQ_OVERFLOW
    public static final int IORING_SQ_TASKRUN = 1 << 2;            // IORING_SQ_TASKRUN

    // sqe->fsync_flags, timeout_flags, cancel_flags
    public static final int IORING_FSYNC_DATASYNC = 1 << 0;        // IORING_FSYNC_DATASYNC
    public static final int IORING_TIMEOUT_ABS = 1 << 0;           // IORING_TIMEOUT_ABS
    public static final int IORING_TIMEOUT_ETIME_SUCCESS = 1 << 5; // IORING_TIMEOUT_ETIME_SUCCESS
    public static final int IORING_ASYNC_CANCEL_ALL = 1 << 0;      // IORING_ASYNC_CANCEL_ALL
    public static final int IORING_ASYNC_CANCEL_FD = 1 << 1;       // IORING_ASYNC_CANCEL_FD
    public static final int IORING_ASYNC_CANCEL_ANY = 1 << 2;      // IORING_ASYNC_CANCEL_ANY

    // io_uring_register() opcodes
    public static final int IORING_REGISTER_BUFFERS = 0;           // IORING_REGISTER_BUFFERS
    public static final int IORING_UNREGISTER_BUFFERS = 1;         // IORING_UNREGISTER_BUFFERS
    public static final int IORING_REGISTER_FILES = 2;             // IORING_REGISTER_FILES
    public static final int IORING_UNREGISTER_FILES = 3;           // IORING_UNREGISTER_FILES
    public static final int IORING_REGISTER_PROBE = 8;             // IORING_REGISTER_PROBE
    public static final int IORING_REGISTER_RING_FDS = 20;         // IORING_REGISTER_RING_FDS
    public static final int IORING_UNREGISTER_RING_FDS = 21;       // IORING_UNREGISTER_RING_FDS

    // mmap offsets
    public static final long IORING_OFF_SQ_RING = 0L;              // IORING_OFF_SQ_RING
    public static final long IORING_OFF_CQ_RING = 0x8000000L;      // IORING_OFF_CQ_RING
    public static final long IORING_OFF_SQES = 0x10000000L;        // IORING_OFF_SQES

    public static final int IO_URING_OP_SUPPORTED = 1 << 0;        // IO_URING_OP_SUPPORTED

    /** Opcode names in enum order, through Linux 6.16 (IORING_OP_PIPE = 62). */
    private static final String[] OP_NAMES = {
        "NOP", "READV", "WRITEV", "FSYNC", "READ_FIXED", "WRITE_FIXED", "POLL_ADD", "POLL_REMOVE",
        "SYNC_FILE_RANGE", "SENDMSG", "RECVMSG", "TIMEOUT", "TIMEOUT_REMOVE", "ACCEPT", "ASYNC_CANCEL",
        "LINK_TIMEOUT", "CONNECT", "FALLOCATE", "OPENAT", "CLOSE", "FILES_UPDATE", "STATX", "READ", "WRITE",
        "FADVISE", "MADVISE", "SEND", "RECV", "OPENAT2", "EPOLL_CTL", "SPLICE", "PROVIDE_BUFFERS",
        "REMOVE_BUFFERS", "TEE", "SHUTDOWN", "RENAMEAT", "UNLINKAT", "MKDIRAT", "SYMLINKAT", "LINKAT", "MSG_RING",
        "FSETXATTR", "SETXATTR", "FGETXATTR", "GETXATTR", "SOCKET", "URING_CMD", "SEND_ZC", "SENDMSG_ZC",
        "READ_MULTISHOT", "WAITID", "FUTEX_WAIT", "FUTEX_WAKE", "FUTEX_WAITV", "FIXED_FD_INSTALL", "FTRUNCATE",
        "BIND", "LISTEN", "RECV_ZC", "EPOLL_WAIT", "READV_FIXED", "WRITEV_FIXED", "PIPE",
    };

    private static final String[] SETUP_FLAG_NAMES = {
        "IOPOLL", "SQPOLL", "SQ_AFF", "CQSIZE", "CLAMP", "ATTACH_WQ", "R_DISABLED", "SUBMIT_ALL", "COOP_TASKRUN",
        "TASKRUN_FLAG", "SQE128", "CQE32", "SINGLE_ISSUER", "DEFER_TASKRUN",
    };

    private static final String[] FEATURE_NAMES = {
        "SINGLE_MMAP", "NODROP", "SUBMIT_STABLE", "RW_CUR_POS", "CUR_PERSONALITY", "FAST_POLL", "POLL_32BITS",
        "SQPOLL_NONFIXED", "EXT_ARG", "NATIVE_WORKERS", "RSRC_TAGS", "CQE_SKIP", "LINKED_FILE", "REG_REG_RING",
        "RECVSEND_BUNDLE", "MIN_TIMEOUT", "RW_ATTR", "NO_IOWAIT",
    };

    private UringConstants() {
    }

    /** The opcode's name without prefix ({@code "READ"}), for logs and {@code toString()}. */
    public static String opName(int op) {
        return op >= 0 && op < OP_NAMES.length ? OP_NAMES[op] : "OP_" + op;
    }

    /** Names of the set bits of setup flags, e.g. {@code "SINGLE_ISSUER|DEFER_TASKRUN"}. */
    public static String setupFlagNames(int flags) {
        return bitNames(flags, SETUP_FLAG_NAMES);
    }

    /** Names of the set bits of a features word. */
    public static String featureNames(int features) {
        return bitNames(features, FEATURE_NAMES);
    }

    private static String bitNames(int bits, String[] names) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 32; i++) {
            if ((bits & (1 << i)) == 0) continue;
            if (!sb.isEmpty()) sb.append('|');
            sb.append(i < names.length ? names[i] : "BIT" + i);
        }
        return sb.toString();
    }
}
