package io.jfio.cli;

import io.jfio.core.sys.PathBytes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The command-line arguments as the bytes the process was given. The JVM decodes each argument with
 * {@code sun.jnu.encoding} and replaces what does not decode with U+FFFD, so a file name that is not valid UTF-8 (or
 * not ASCII, under {@code LANG=C}) reaches {@code main} as a string that names another file, or none. The exact bytes
 * are still in {@code /proc/self/cmdline}: the JVM's argv, whose last entries are the program's arguments.
 *
 * <p>Thread-safe: {@link #install} runs once in {@code main}, before any command.
 */
final class RawArgs {
    /** The arguments whose string is not their bytes, by identity (the very strings {@code main} was given). */
    private static volatile Map<String, byte[]> lossy = Map.of();
    /** False when the bytes could not be read: then an argument that may have lost bytes cannot be used. */
    private static volatile boolean known = true;

    private RawArgs() {
    }

    /**
     * The bytes of each of {@code args} as the process got them, or null when {@code /proc/self/cmdline} does not end
     * with entries that decode to exactly {@code args}.
     */
    static byte[][] read(String[] args) {
        byte[] all;
        try {
            all = Files.readAllBytes(Path.of("/proc/self/cmdline"));
        } catch (IOException | RuntimeException e) {
            return null;
        }
        // Each entry ends with a NUL, an empty argument included.
        List<byte[]> entries = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == 0) {
                entries.add(Arrays.copyOfRange(all, start, i));
                start = i + 1;
            }
        }
        if (start < all.length) entries.add(Arrays.copyOfRange(all, start, all.length));
        // At least the java binary precedes the arguments.
        if (entries.size() <= args.length) return null;
        byte[][] raw = new byte[args.length][];
        int first = entries.size() - args.length;
        for (int i = 0; i < args.length; i++) {
            raw[i] = entries.get(first + i);
            if (!new String(raw[i], PathBytes.JNU).equals(args[i])) return null;
        }
        return raw;
    }

    /**
     * Remembers the bytes of those of {@code args} whose string does not give them back; {@code raw} null when they
     * could not be read.
     */
    static void install(String[] args, byte[][] raw) {
        Map<String, byte[]> m = new IdentityHashMap<>();
        for (int i = 0; raw != null && i < args.length; i++) {
            if (!exact(args[i], raw[i])) m.put(args[i], raw[i]);
        }
        lossy = m;
        known = raw != null;
    }

    /** Puts back the state before {@link #install}: every argument is its string (as in tests run in one JVM). */
    static void reset() {
        lossy = Map.of();
        known = true;
    }

    /** True when {@code arg}'s string encodes back to {@code raw}, the bytes it was decoded from. */
    static boolean exact(String arg, byte[] raw) {
        return Arrays.equals(arg.getBytes(PathBytes.JNU), raw);
    }

    /**
     * The path an argument names, by its exact bytes.
     *
     * @param arg an argument, or a value taken from one (after {@code --option=})
     * @return the path; relative where the argument was
     * @throws CliException (usage) when its bytes were lost and are not known
     */
    static Path path(String arg) {
        byte[] raw = lossy.get(arg);
        if (raw == null) {
            if (mayHaveLost(arg)) {
                throw new CliException(ExitCodes.USAGE, "cannot tell which file this argument names, its bytes "
                        + "are not valid in the locale's encoding (" + PathBytes.JNU + "): " + Quote.name(arg));
            }
            return Path.of(arg);
        }
        Path cwd = Path.of("").toAbsolutePath();
        boolean absolute = raw[0] == '/';
        Path p = PathBytes.path(absolute ? raw : PathBytes.join(PathBytes.bytes(cwd), raw));
        if (absolute) return p;
        // Relative as given where that keeps the bytes; relativize drops "." and ".." pieces.
        Path rel = cwd.relativize(p);
        return Arrays.equals(PathBytes.bytes(rel), raw) ? rel : p;
    }

    /**
     * True when {@code arg} may not be the argument's bytes: it holds U+FFFD (what the JVM puts for bytes it cannot
     * decode) or cannot be encoded back, and its bytes are not known.
     */
    static boolean mayHaveLost(String arg) {
        if (lossy.containsKey(arg)) return false;
        boolean suspect = arg.indexOf('\uFFFD') >= 0 || !PathBytes.JNU.newEncoder().canEncode(arg);
        return suspect && (!known || !lossy.isEmpty());
    }

    /** The argument's bytes where its string lost some, else null. */
    static byte[] lostBytes(String arg) {
        return lossy.get(arg);
    }
}
