package io.jfio.ship.sink;

/**
 * Immutable; thread-safe. Made by the pipeline for each batch.
 *
 * <p>The identity of the content a batch comes from, for sinks that store the source position with the data: the
 * file's device and inode, the fingerprint of its first bytes (what tells one content from another on the same inode
 * after a truncation or an inode reuse) and the path it was read under (where to look for it after a rename).
 *
 * @param device   {@code st_dev}
 * @param inode    {@code st_ino}
 * @param fpLength how many leading bytes the fingerprint covers
 * @param fpHash   the fingerprint's hash
 * @param path     the path the file was read under
 */
public record SourceId(long device, long inode, int fpLength, long fpHash, String path) {
}
