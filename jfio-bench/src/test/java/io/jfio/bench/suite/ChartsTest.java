package io.jfio.bench.suite;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;

class ChartsTest {
    @Test
    void slantsLabelsOnlyWhenTheyWouldRunIntoEachOther() {
        assertTrue(Charts.crowded(List.of("stat (statx on the path)", "open + fstat + close", "fstat", "pread 8 KiB",
                "pread 8 B")), "metadata's labels overlapped when level");
        assertFalse(Charts.crowded(List.of("NORMAL", "RANDOM", "SEQUENTIAL", "WILLNEED", "DONTNEED", "NOREUSE")));
    }

    @Test
    void percentilesAreEvenlySpacedCategoriesOnALogAxis() throws Exception {
        Plot p = Plot.categoryLines("latency", "percentile", "µs", true, List.of("p0", "p50", "p99", "max"));
        p.bars("aligned hot", new double[] {0.5, 1.2, 3.0, 250});
        p.bars("aligned cold", new double[] {12, 20, Double.NaN, 6000});
        BufferedImage img = ImageIO.read(new ByteArrayInputStream(Charts.png(p)));
        assertEquals(1000, img.getWidth());
        assertEquals("category_line", p.toMap().get("kind"));
        assertEquals(List.of("p0", "p50", "p99", "max"), p.toMap().get("categories"));
    }
}
