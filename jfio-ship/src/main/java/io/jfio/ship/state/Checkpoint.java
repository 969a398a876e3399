package io.jfio.ship.state;

/**
 * How far one file has been shipped and acknowledged.
 *
 * @param device   {@code st_dev} of the file
 * @param inode    {@code st_ino}
 * @param fpLength how many leading bytes the fingerprint covers (less than the fingerprint size for short files)
 * @param fpHash   the fingerprint: a 64-bit hash of the first {@code fpLength} bytes
 * @param offset   every byte before this offset was acknowledged by the sink
 * @param seenAt   when the file was last seen (epoch ms); entries unseen for long are forgotten
 * @param path     the path it was last seen under (to look for it there after a rotation while stopped)
 */
public record Checkpoint(long device, long inode, int fpLength, long fpHash, long offset, long seenAt, String path) {
}
