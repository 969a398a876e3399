package io.jfio.core.file;

/**
 * What a file is, independent of its name: the device and inode number, read with fstat on an open descriptor (so
 * the answer is about the file that was opened, with no race against renames). Unique among files that exist at
 * the same time; an inode number may be reused after a file is deleted.
 *
 * @param device the device ID ({@code st_dev}, glibc's {@code makedev} encoding)
 * @param inode  the inode number ({@code st_ino})
 */
public record FileIdentity(long device, long inode) {

    /**
     * The device's major number ({@code gnu_dev_major}).
     *
     * @return the major number
     */
    public long major() {
        return ((device >>> 8) & 0xfffL) | ((device >>> 32) & 0xfffff000L);
    }

    /**
     * The device's minor number ({@code gnu_dev_minor}).
     *
     * @return the minor number
     */
    public long minor() {
        return (device & 0xffL) | ((device >>> 12) & 0xffffff00L);
    }

    @Override
    public String toString() {
        return "dev=" + major() + ":" + minor() + " ino=" + inode;
    }
}
