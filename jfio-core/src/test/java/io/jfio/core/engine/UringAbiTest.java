package io.jfio.core.engine;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.abort;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.sys.ErrnoException;
import io.jfio.core.uring.UringConstants;
import java.io.IOException;
import java.lang.foreign.StructLayout;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The io_uring structs and constants against the kernel ABI (linux/io_uring.h, Linux 6.1 UAPI): every size and field
 * offset, both as the {@code OFF_*} constants and as the {@code LAYOUT}'s own offsets, and the constants.
 */
class UringAbiTest {
    private static final Path HEADER = Path.of("/usr/include/linux/io_uring.h");

    private static void assertField(StructLayout layout, String name, long expected, long constant) {
        assertEquals(expected, layout.byteOffset(groupElement(name)), "LAYOUT offset of " + name);
        assertEquals(expected, constant, "OFF_ constant of " + name);
    }

    @Test
    void shouldMatchKernelSqeLayout() {
        assertEquals(64, Sqe.LAYOUT.byteSize());
        assertEquals(64, Sqe.SIZE);
        assertField(Sqe.LAYOUT, "opcode", 0, Sqe.OFF_OPCODE);
        assertField(Sqe.LAYOUT, "flags", 1, Sqe.OFF_FLAGS);
        assertField(Sqe.LAYOUT, "ioprio", 2, Sqe.OFF_IOPRIO);
        assertField(Sqe.LAYOUT, "fd", 4, Sqe.OFF_FD);
        assertField(Sqe.LAYOUT, "off", 8, Sqe.OFF_OFF);
        assertField(Sqe.LAYOUT, "addr", 16, Sqe.OFF_ADDR);
        assertField(Sqe.LAYOUT, "len", 24, Sqe.OFF_LEN);
        assertField(Sqe.LAYOUT, "op_flags", 28, Sqe.OFF_OP_FLAGS);
        assertField(Sqe.LAYOUT, "user_data", 32, Sqe.OFF_USER_DATA);
        assertField(Sqe.LAYOUT, "buf_index", 40, Sqe.OFF_BUF_INDEX);
        assertField(Sqe.LAYOUT, "personality", 42, Sqe.OFF_PERSONALITY);
        assertField(Sqe.LAYOUT, "splice_fd_in", 44, Sqe.OFF_SPLICE_FD_IN);
        assertField(Sqe.LAYOUT, "addr3", 48, Sqe.OFF_ADDR3);
        assertEquals(56, Sqe.OFF_PAD2);
        // Field sizes as the kernel declares them (__u8, __u8, __u16, __s32, __u64, __u64, __u32, __u32, __u64, ...).
        long[] sizes = {1, 1, 2, 4, 8, 8, 4, 4, 8, 2, 2, 4, 8};
        String[] names = {"opcode", "flags", "ioprio", "fd", "off", "addr", "len", "op_flags", "user_data",
            "buf_index", "personality", "splice_fd_in", "addr3"};
        for (int i = 0; i < names.length; i++) {
            assertEquals(sizes[i], Sqe.LAYOUT.select(groupElement(names[i])).byteSize(), "size of " + names[i]);
        }
    }

    @Test
    void shouldMatchKernelCqeLayout() {
        assertEquals(16, Cqe.LAYOUT.byteSize());
        assertEquals(16, Cqe.SIZE);
        assertField(Cqe.LAYOUT, "user_data", 0, Cqe.OFF_USER_DATA);
        assertField(Cqe.LAYOUT, "res", 8, Cqe.OFF_RES);
        assertField(Cqe.LAYOUT, "flags", 12, Cqe.OFF_FLAGS);
    }

    @Test
    void shouldMatchKernelParamsLayout() {
        assertEquals(120, UringParams.LAYOUT.byteSize());
        assertField(UringParams.LAYOUT, "sq_entries", 0, UringParams.OFF_SQ_ENTRIES);
        assertField(UringParams.LAYOUT, "cq_entries", 4, UringParams.OFF_CQ_ENTRIES);
        assertField(UringParams.LAYOUT, "flags", 8, UringParams.OFF_FLAGS);
        assertEquals(12, UringParams.LAYOUT.byteOffset(groupElement("sq_thread_cpu")));
        assertEquals(16, UringParams.LAYOUT.byteOffset(groupElement("sq_thread_idle")));
        assertField(UringParams.LAYOUT, "features", 20, UringParams.OFF_FEATURES);
        assertEquals(24, UringParams.LAYOUT.byteOffset(groupElement("wq_fd")));
        assertEquals(28, UringParams.LAYOUT.byteOffset(groupElement("resv")));
        assertEquals(12, UringParams.LAYOUT.select(groupElement("resv")).byteSize());
        assertField(UringParams.LAYOUT, "sq_off", 40, UringParams.OFF_SQ_OFF);
        assertField(UringParams.LAYOUT, "cq_off", 80, UringParams.OFF_CQ_OFF);
        assertEquals(72, UringParams.LAYOUT.byteOffset(groupElement("sq_off"), groupElement("user_addr")));
        assertEquals(112, UringParams.LAYOUT.byteOffset(groupElement("cq_off"), groupElement("user_addr")));
    }

    @Test
    void shouldMatchKernelSqringOffsetsLayout() {
        StructLayout l = UringParams.SQRING_OFFSETS;
        assertEquals(40, l.byteSize());
        assertField(l, "head", 0, UringParams.SQ_HEAD);
        assertField(l, "tail", 4, UringParams.SQ_TAIL);
        assertField(l, "ring_mask", 8, UringParams.SQ_RING_MASK);
        assertField(l, "ring_entries", 12, UringParams.SQ_RING_ENTRIES);
        assertField(l, "flags", 16, UringParams.SQ_FLAGS);
        assertField(l, "dropped", 20, UringParams.SQ_DROPPED);
        assertField(l, "array", 24, UringParams.SQ_ARRAY);
        assertEquals(28, l.byteOffset(groupElement("resv1")));
        assertEquals(32, l.byteOffset(groupElement("user_addr")));
    }

    @Test
    void shouldMatchKernelCqringOffsetsLayout() {
        StructLayout l = UringParams.CQRING_OFFSETS;
        assertEquals(40, l.byteSize());
        assertField(l, "head", 0, UringParams.CQ_HEAD);
        assertField(l, "tail", 4, UringParams.CQ_TAIL);
        assertField(l, "ring_mask", 8, UringParams.CQ_RING_MASK);
        assertField(l, "ring_entries", 12, UringParams.CQ_RING_ENTRIES);
        assertField(l, "overflow", 16, UringParams.CQ_OVERFLOW);
        assertField(l, "cqes", 20, UringParams.CQ_CQES);
        assertField(l, "flags", 24, UringParams.CQ_FLAGS);
        assertEquals(28, l.byteOffset(groupElement("resv1")));
        assertEquals(32, l.byteOffset(groupElement("user_addr")));
    }

    @Test
    void shouldMatchKernelConstants() {
        assertEquals(0, UringConstants.IORING_OP_NOP);
        assertEquals(3, UringConstants.IORING_OP_FSYNC);
        assertEquals(11, UringConstants.IORING_OP_TIMEOUT);
        assertEquals(14, UringConstants.IORING_OP_ASYNC_CANCEL);
        assertEquals(15, UringConstants.IORING_OP_LINK_TIMEOUT);
        assertEquals(21, UringConstants.IORING_OP_STATX);
        assertEquals(22, UringConstants.IORING_OP_READ);
        assertEquals(23, UringConstants.IORING_OP_WRITE);
        assertEquals(48, UringConstants.IORING_OP_SENDMSG_ZC);
        assertEquals(1 << 2, UringConstants.IOSQE_IO_LINK);
        assertEquals(1 << 12, UringConstants.IORING_SETUP_SINGLE_ISSUER);
        assertEquals(1 << 13, UringConstants.IORING_SETUP_DEFER_TASKRUN);
        assertEquals(1 << 0, UringConstants.IORING_ENTER_GETEVENTS);
        assertEquals(1 << 1, UringConstants.IORING_FEAT_NODROP);
        assertEquals(1 << 0, UringConstants.IORING_FSYNC_DATASYNC);
        assertEquals(1 << 2, UringConstants.IORING_ASYNC_CANCEL_ANY);
        assertEquals(0L, UringConstants.IORING_OFF_SQ_RING);
        assertEquals(0x8000000L, UringConstants.IORING_OFF_CQ_RING);
        assertEquals(0x10000000L, UringConstants.IORING_OFF_SQES);
        assertEquals(0, UringConstants.IORING_REGISTER_BUFFERS);
        assertEquals(8, UringConstants.IORING_REGISTER_PROBE);
        assertEquals(20, UringConstants.IORING_REGISTER_RING_FDS);
        assertEquals("READ", UringConstants.opName(UringConstants.IORING_OP_READ));
        assertEquals("OP_200", UringConstants.opName(200));
        assertEquals("SINGLE_ISSUER|DEFER_TASKRUN", UringConstants.setupFlagNames(3 << 12));
    }

    /** Every IORING_OP_* constant and its name against the enum in the installed header, in order. */
    @Test
    void shouldNumberOpcodesAsTheInstalledHeader() throws Exception {
        assumeTrue(Files.isReadable(HEADER), "no kernel headers at " + HEADER);
        String text = Files.readString(HEADER);
        int start = text.indexOf("enum io_uring_op {");
        assumeTrue(start >= 0, "no enum io_uring_op in " + HEADER);
        String body = text.substring(start, text.indexOf('}', start));
        List<String> ops = new ArrayList<>();
        Matcher m = Pattern.compile("\\b(IORING_OP_\\w+)").matcher(body);
        while (m.find()) {
            if (!m.group(1).equals("IORING_OP_LAST")) ops.add(m.group(1));
        }
        Map<String, Long> ours = constants();
        int checked = 0;
        for (int value = 0; value < ops.size(); value++) {
            String name = ops.get(value);
            if (!ours.containsKey(name)) continue; // newer than our table
            assertEquals(value, ours.get(name), name);
            assertEquals(name.substring("IORING_OP_".length()), UringConstants.opName(value), "opName(" + value + ")");
            checked++;
        }
        assertTrue(checked >= 49, "checked only " + checked + " opcodes");
    }

    /**
     * Every constant of the installed header that we also define: the members of its enums (IORING_REGISTER_*,
     * the IOSQE_*_BIT numbers) and its {@code #define NAME (1U << n)}, {@code (1U << ENUM_MEMBER)} and
     * {@code #define NAME 0x...} macros.
     */
    @Test
    void shouldDefineConstantsAsTheInstalledHeader() throws Exception {
        assumeTrue(Files.isReadable(HEADER), "no kernel headers at " + HEADER);
        String text = Files.readString(HEADER).replaceAll("(?s)/\\*.*?\\*/", "");
        Map<String, Long> header = new LinkedHashMap<>();
        Matcher enums = Pattern.compile("(?s)enum\\s*\\w*\\s*\\{(.*?)}").matcher(text);
        while (enums.find()) {
            long next = 0;
            for (String member : enums.group(1).split(",")) {
                String[] kv = member.trim().split("\\s*=\\s*");
                if (kv[0].isEmpty() || kv[0].startsWith("#")) continue;
                long value = kv.length > 1 ? parse(kv[1], header) : next;
                header.put(kv[0], value);
                next = value + 1;
            }
        }
        Matcher defines = Pattern.compile("(?m)^#define\\s+(\\w+)\\s+(.+?)\\s*$").matcher(text);
        while (defines.find()) {
            try {
                header.put(defines.group(1), parse(defines.group(2), header));
            } catch (NumberFormatException notAConstant) {
                // a macro we do not mirror (a function-like or composite one)
            }
        }
        Map<String, Long> ours = constants();
        int checked = 0;
        for (Map.Entry<String, Long> e : ours.entrySet()) {
            Long expected = header.get(e.getKey());
            if (expected == null) continue;
            assertEquals(expected, e.getValue(), e.getKey());
            checked++;
        }
        assertTrue(checked >= 100, "checked only " + checked + " constants");
    }

    /** {@code 12}, {@code 0x10000000ULL}, {@code (1U << 3)}, {@code (1U << IOSQE_IO_LINK_BIT)}. */
    private static long parse(String expr, Map<String, Long> known) {
        String e = expr.trim();
        while (e.startsWith("(") && e.endsWith(")")) e = e.substring(1, e.length() - 1).trim();
        int shift = e.indexOf("<<");
        if (shift >= 0) return parse(e.substring(0, shift), known) << parse(e.substring(shift + 2), known);
        if (known.containsKey(e)) return known.get(e);
        return Long.decode(e.replaceAll("(?i)[UL]+$", ""));
    }

    private static Map<String, Long> constants() throws IllegalAccessException {
        Map<String, Long> map = new LinkedHashMap<>();
        for (Field f : UringConstants.class.getFields()) {
            if (!Modifier.isStatic(f.getModifiers())) continue;
            if (f.getType() == int.class) map.put(f.getName(), (long) f.getInt(null));
            if (f.getType() == long.class) map.put(f.getName(), f.getLong(null));
        }
        return map;
    }

    /** A NOP through the raw ring: the kernel must read our SQE and write a CQE where our layouts say. */
    @Test
    void shouldRoundTripUserDataThroughKernel() throws IOException {
        Ring ring;
        try {
            ring = Ring.create(8, 32, Ring.DEFAULT_FLAGS);
        } catch (UringUnavailableException e) {
            ring = abort("io_uring unavailable: " + e.getMessage());
        }
        try (Ring r = ring) {
            assertEquals(8, r.sq().entries());
            assertEquals(32, r.cq().entries());
            BitSet ops = r.probeOps();
            assertTrue(ops.get(UringConstants.IORING_OP_READ) && ops.get(UringConstants.IORING_OP_WRITE),
                    ops::toString);
            long[] userData = {0x1234_5678_9abc_def0L, -3L, 7L};
            for (long ud : userData) {
                r.sq().prepare(UringConstants.IORING_OP_NOP, 0, -1, 0, 0, 0, 0, ud, 0, 0, 0);
            }
            assertEquals(3, r.sq().publish());
            int submitted = r.enter(3, 3, UringConstants.IORING_ENTER_GETEVENTS);
            ErrnoException.check(submitted, "io_uring_enter", r.fd(), null);
            assertEquals(3, submitted);
            assertEquals(3, r.cq().ready());
            for (int i = 0; i < 3; i++) {
                assertEquals(userData[i], r.cq().userData(i), "user_data of CQE " + i);
                assertEquals(0, r.cq().res(i), "res of CQE " + i);
            }
            r.cq().advance(3);
            assertEquals(0, r.cq().ready());
            assertEquals(0, r.cq().overflow());
            assertEquals(0, r.sq().dropped());
        }
    }

    @Test
    void shouldReportEinvalForUnknownOpcodeInCqe() throws IOException {
        Ring ring;
        try {
            ring = Ring.create(4, 16, Ring.DEFAULT_FLAGS);
        } catch (UringUnavailableException e) {
            ring = abort("io_uring unavailable: " + e.getMessage());
        }
        try (Ring r = ring) {
            r.sq().prepare(250, 0, -1, 0, 0, 0, 0, 99L, 0, 0, 0);
            r.sq().publish();
            assertEquals(1, r.enter(1, 1, UringConstants.IORING_ENTER_GETEVENTS));
            assertEquals(99L, r.cq().userData(0));
            assertEquals(-io.jfio.core.sys.Errno.EINVAL, r.cq().res(0));
            r.cq().advance(1);
            r.close();
            r.close(); // idempotent
        }
    }
}
