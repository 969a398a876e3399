package io.jfio.core.copy;

import io.jfio.core.sys.PathBytes;

/**
 * One non-directory entry to copy: a regular file, symlink, FIFO, socket or device node, found in {@code dir}.
 *
 * <p>Immutable after construction; handed from the lister to one worker at a time.
 *
 * @param dir     the directory it is in (a stand-in for top-level sources)
 * @param srcName its name in the source directory
 * @param dstName its name in the target directory (differs from srcName only for a top-level {@code cp a b})
 * @param meta    what statx said when the directory was listed
 */
record Entry(DirNode dir, byte[] srcName, byte[] dstName, Meta meta) {

    byte[] srcPath() {
        return PathBytes.join(dir.src, srcName);
    }

    byte[] dstPath() {
        return PathBytes.join(dir.dst, dstName);
    }

    String showSrc() {
        return Names.show(srcPath());
    }

    String showDst() {
        return Names.show(dstPath());
    }
}
