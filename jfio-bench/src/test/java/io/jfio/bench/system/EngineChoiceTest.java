package io.jfio.bench.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jfio.core.engine.UringUnavailableException;
import io.jfio.core.sys.Errno;
import io.jfio.core.sys.ErrnoException;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

/** The engine decision mirrors {@code Engines.create()} for every configured choice and probe outcome. */
class EngineChoiceTest {
    private static final UringProbe WORKS = new UringProbe(true, 0, 0, 256, 1024, true, new BitSet(), null);
    private static final UringProbe DISABLED = UringProbe.failed(
            new UringUnavailableException("io_uring_setup", Errno.EPERM));
    private static final UringProbe BROKEN = UringProbe.failed(
            new ErrnoException("mmap(sq ring)", Errno.ENOMEM, null));

    @Test
    void autoUsesIoUringWhereItWorks() {
        EngineChoice c = EngineChoice.decide("auto", WORKS);
        assertEquals("io_uring", c.selected());
        assertNull(c.error());
    }

    @Test
    void autoFallsBackToThreadsWithTheReason() {
        EngineChoice c = EngineChoice.decide("auto", DISABLED);
        assertEquals("threads", c.selected());
        assertTrue(c.reason().contains("EPERM"), c.reason());
        assertNull(c.error());
    }

    @Test
    void autoFallsBackFromAnyErrnoFailureOfTheSetupAsEnginesCreateDoes() {
        EngineChoice c = EngineChoice.decide("auto", BROKEN);
        assertEquals("threads", c.selected());
        assertTrue(c.reason().contains("ENOMEM"), c.reason());
    }

    @Test
    void autoReportsAnErrorForAFailureThatIsNotAnErrno() {
        EngineChoice c = EngineChoice.decide("auto", UringProbe.failed(new IllegalStateException("ring thread died")));
        assertNull(c.selected());
        assertTrue(c.error().contains("ring thread died"), c.error());
    }

    @Test
    void forcedUringIsAnErrorWhereUnavailable() {
        EngineChoice c = EngineChoice.decide("uring", DISABLED);
        assertNull(c.selected());
        assertEquals("io_uring forced by -Djfio.engine=uring but unavailable: reason=io_uring_setup failed: "
                + "errno=EPERM (Operation not permitted)", c.error());
        assertEquals("io_uring", EngineChoice.decide("uring", WORKS).selected());
    }

    @Test
    void forcedThreadsIsThreadsWhateverIoUringDoes() {
        assertEquals("threads", EngineChoice.decide("threads", WORKS).selected());
        assertEquals("threads", EngineChoice.decide("threads", DISABLED).selected());
    }

    @Test
    void theLikelyCauseFollowsTheSysctlAndTheSeccompMode() {
        Exception eperm = DISABLED.failure();
        assertTrue(UringProbe.likelyCause(eperm, 2L, 0).contains("kernel.io_uring_disabled=2"));
        assertTrue(UringProbe.likelyCause(eperm, 1L, 2).contains("kernel.io_uring_group"));
        assertTrue(UringProbe.likelyCause(eperm, 0L, 2).contains("seccomp filter"));
        assertTrue(UringProbe.likelyCause(eperm, null, 0).contains("security module"));
        Exception enosys = new UringUnavailableException("io_uring_setup", Errno.ENOSYS);
        assertTrue(UringProbe.likelyCause(enosys, null, 0).contains("CONFIG_IO_URING"));
        assertNull(UringProbe.likelyCause(BROKEN.failure(), 0L, 0));
        assertNull(UringProbe.likelyCause(new IllegalStateException("x"), 0L, 0));
    }

    @Test
    void unavailableIoUringIsReportedWithTheReasonAndNoDetails() {
        Report r = new Report();
        DISABLED.describe(r);
        assertEquals(false, r.value("io_uring", "available"));
        assertNull(r.value("io_uring", "supported_ops"));
        assertTrue(((String) r.value("io_uring", "unavailable_reason")).contains("EPERM"));
        java.io.StringWriter text = new java.io.StringWriter();
        r.printText(new java.io.PrintWriter(text));
        assertTrue(text.toString().contains("reason:"), text.toString());
        assertTrue(!text.toString().contains("supported ops"), text.toString());
    }
}
