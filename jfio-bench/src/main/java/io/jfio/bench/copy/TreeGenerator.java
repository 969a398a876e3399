package io.jfio.bench.copy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The benchmark's data, the same for the same seed: a tree of small files and one large file.
 *
 * <p>Thread-safe; stateless. Tree: 25 directories of 8 subdirectories (200 leaves) holding the files; sizes from
 * 512 B to 64 KiB, {@code 512 + 65024 * u^3.15} for uniform {@code u}, which averages 16.2 KB (20,000 files make
 * about 324 MB): mostly small files with a long tail, like source trees and mail stores. Contents come from a
 * seeded random pool at random offsets, so no two files share blocks. The large file is written in full (no holes).
 */
public final class TreeGenerator {
    static final int TOP_DIRS = 25;
    static final int SUB_DIRS = 8;
    static final int MIN_SIZE = 512;
    static final int MAX_SIZE = 64 << 10;
    /** The exponent that makes the mean size 16.2 KB. */
    static final double SIZE_EXPONENT = 3.15;
    private static final int POOL = 16 << 20;

    private TreeGenerator() {
    }

    /** What was generated. */
    public record Tree(Path root, List<Path> files, long bytes) {
    }

    /** The size of file {@code i}'s draw {@code u}. */
    static int size(double u) {
        return MIN_SIZE + (int) ((MAX_SIZE - MIN_SIZE) * Math.pow(u, SIZE_EXPONENT));
    }

    private static byte[] pool(long seed) {
        byte[] b = new byte[POOL + MAX_SIZE];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** Writes {@code files} files under {@code root} (which must not exist). */
    public static Tree tree(Path root, int files, long seed) throws IOException {
        SplittableRandom rnd = new SplittableRandom(seed ^ 0x5DEECE66DL);
        byte[] pool = pool(seed);
        List<Path> out = new ArrayList<>(files);
        long bytes = 0;
        Files.createDirectories(root);
        for (int i = 0; i < files; i++) {
            int leaf = i % (TOP_DIRS * SUB_DIRS);
            Path dir = root.resolve(String.format("d%02d/s%d", leaf / SUB_DIRS, leaf % SUB_DIRS));
            if (i < TOP_DIRS * SUB_DIRS) Files.createDirectories(dir);
            Path f = dir.resolve(String.format("f%06d", i));
            int size = size(rnd.nextDouble());
            int off = rnd.nextInt(POOL);
            try (OutputStream o = Files.newOutputStream(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                o.write(pool, off, size);
            }
            out.add(f);
            bytes += size;
        }
        return new Tree(root, out, bytes);
    }

    /** Writes a file of {@code size} bytes with every block written (no holes). */
    public static void bigFile(Path file, long size, long seed) throws IOException {
        byte[] pool = pool(seed + 1);
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            long pos = 0;
            int chunk = 8 << 20;
            int k = 0;
            while (pos < size) {
                int n = (int) Math.min(chunk, size - pos);
                ByteBuffer b = ByteBuffer.wrap(pool, (k++ * 4099) % (POOL - chunk + MAX_SIZE), n);
                while (b.hasRemaining()) pos += ch.write(b, pos);
            }
        }
    }
}
