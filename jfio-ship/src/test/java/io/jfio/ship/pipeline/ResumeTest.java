package io.jfio.ship.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.jfio.ship.harvest.Fingerprint;
import io.jfio.ship.state.Checkpoint;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The resume rule alone: identity first, then content, then new; the same decisions a run and a dry run make. */
class ResumeTest {
    /** A file whose first n bytes hash to {@code base + n}. */
    private static Resume.Head head(long base) {
        return n -> base + n;
    }

    private static Checkpoint entry(int fpLength, long fpHash, long offset) {
        return new Checkpoint(1, 2, fpLength, fpHash, offset, 0, "/x");
    }

    @Test
    void shouldResumeAtTheLargestOffsetOfTheEntriesThatMatchTheFileAndOrphanTheOthers() {
        Checkpoint small = entry(Fingerprint.SIZE, 7 + Fingerprint.SIZE, 100);
        Checkpoint large = entry(Fingerprint.SIZE, 7 + Fingerprint.SIZE, 300);
        Checkpoint other = entry(Fingerprint.SIZE, 99, 500);
        Resume.Decision d = Resume.own(4096, head(7), List.of(small, other, large));
        assertEquals(300, d.offset());
        assertEquals("resumed", d.why());
        assertSame(large, d.entry());
        assertEquals(List.of(other), d.orphans(), "the stale entry of the same content is no orphan");
    }

    @Test
    void shouldStartFromZeroWhenTheInodeHoldsAnotherContentOrWasTruncated() {
        assertEquals("new-file-same-inode", Resume.own(4096, head(7), List.of(entry(1024, 1, 10))).why());
        assertEquals(0, Resume.own(4096, head(7), List.of(entry(1024, 1, 10))).offset());
        // Shorter than the fingerprint: cannot be the same content.
        assertEquals("new-file-same-inode", Resume.own(100, head(7), List.of(entry(1024, 7 + 1024, 10))).why());
        Resume.Decision t = Resume.own(2000, head(7), List.of(entry(1024, 7 + 1024, 3000)));
        assertEquals("truncated-while-stopped", t.why());
        assertEquals(0, t.offset());
        assertEquals(1, t.orphans().size(), "what it held may have a copy");
        assertNull(Resume.own(10, head(7), List.of()));
    }

    @Test
    void shouldResumeNoFurtherThanAShortFingerprintCovers() {
        // A position of 825 bytes whose fingerprint covers none of them matches any content that inode holds.
        Resume.Decision weak = Resume.own(12_750, head(7), List.of(entry(0, 7, 825)));
        assertEquals(0, weak.offset(), "its bytes are shipped again, not taken for shipped");
        assertEquals(400, Resume.own(12_750, head(7), List.of(entry(400, 7 + 400, 825))).offset());
        assertEquals(825, Resume.own(12_750, head(7), List.of(entry(825, 7 + 825, 825))).offset());
        assertEquals(90_000, Resume.own(99_000, head(7), List.of(entry(1024, 7 + 1024, 90_000))).offset());
    }

    @Test
    void shouldTakeOnlyAFullFingerprintForACopyAndNeverResumePastTheCopysEnd() {
        Checkpoint shipped = entry(Fingerprint.SIZE, 7 + Fingerprint.SIZE, 5000);
        assertEquals(5000, Resume.copy(8000, head(7), List.of(shipped)).offset());
        assertEquals(3000, Resume.copy(3000, head(7), List.of(shipped)).offset());
        assertEquals("copy-of-shipped", Resume.copy(3000, head(7), List.of(shipped)).why());
        assertNull(Resume.copy(1000, head(7), List.of(shipped)), "too short to tell");
        assertNull(Resume.copy(8000, head(7), List.of(entry(500, 7 + 500, 400))), "a short fingerprint never matches");
        assertNull(Resume.copy(8000, head(8), List.of(shipped)));
    }

    @Test
    void shouldStartANewFileAtItsEndOnlyWhenAskedTo() {
        assertEquals(0, Resume.fresh(500, false).offset());
        assertEquals(500, Resume.fresh(500, true).offset());
        assertEquals("new-at-end", Resume.fresh(500, true).why());
    }
}
