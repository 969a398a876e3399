package io.jfio.core.copy;

/**
 * One thing that could not be copied, and why. The copy goes on with everything else.
 *
 * @param source  the source path
 * @param target  the target path, or null where none was decided yet
 * @param message what failed, as {@code key=value} text, e.g.
 *                {@code "open failed: errno=EACCES (Permission denied) path=/src/secret"}
 * @param errno   the errno behind it, or 0 when it was not a system call (a refusal, a verification mismatch)
 */
public record CopyFailure(String source, String target, String message, int errno) {
    @Override
    public String toString() {
        return "source=" + source + (target != null ? " target=" + target : "") + " reason=" + message;
    }
}
