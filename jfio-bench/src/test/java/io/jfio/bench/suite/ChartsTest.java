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
        assertFalse(Charts.veryCrowded(List.of("stat (statx on the path)", "open + fstat + close", "fstat",
                "pread 8 KiB", "pread 8 B")), "five labels fit slanted");
        List<String> transfer = List.of("stream loop (8 KiB byte[])", "FileChannel read/write (1 MiB direct)",
                "transferTo, one call", "transferTo loop, 1 MiB chunks", "transferTo loop, 64 MiB chunks",
                "transferTo loop, Integer.MAX_VALUE chunks", "transferFrom loop", "Files.copy",
                "copy_file_range loop (LibC)", "sendfile loop (LibC)", "splice via pipe (LibC)");
        assertTrue(Charts.veryCrowded(transfer), "transfer's eleven long labels overlapped at 45 degrees");
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
