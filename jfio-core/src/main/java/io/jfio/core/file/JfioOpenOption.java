package io.jfio.core.file;

import java.nio.file.OpenOption;

/** Linux open flags beyond {@link java.nio.file.StandardOpenOption}, for {@link IoFile#open}. */
public enum JfioOpenOption implements OpenOption {
    /** O_DIRECT: bypass the page cache. Buffers, offsets and lengths must be aligned (see {@link IoFile#stat()}). */
    DIRECT,
    /** O_NOATIME: do not update the access time (only for the file's owner or root; silently dropped otherwise). */
    NOATIME,
}
