package io.jfio.core.copy;

/**
 * A snapshot of a running copy, from {@link TreeCopy#progress()}. The totals grow while the walk goes on;
 * {@code walkComplete} says when they are final.
 *
 * @param filesFound   entries other than directories found so far
 * @param bytesFound   bytes of regular files found so far
 * @param walkComplete true once every directory has been listed
 * @param filesDone    entries finished (copied, linked or skipped)
 * @param bytesDone    data bytes written so far, plus the sizes of files skipped or reflinked
 * @param bytesWritten data bytes written so far
 * @param failures     entries that failed
 * @param elapsedNanos time since the copy started
 */
public record CopyProgress(long filesFound, long bytesFound, boolean walkComplete, long filesDone, long bytesDone,
                           long bytesWritten, long failures, long elapsedNanos) {
}
