package io.jfio.cli;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The attribute lists of {@code --preserve=LIST} and {@code --no-preserve=LIST}, with cp's names.
 *
 * <p>Thread-safe (stateless).
 */
final class PreserveList {
    /** An attribute cp can keep. */
    enum Attr { MODE, OWNERSHIP, TIMESTAMPS, LINKS, XATTR }

    /** What {@code -p} and {@code --preserve} without a list keep. */
    static final Set<Attr> DEFAULT = EnumSet.of(Attr.MODE, Attr.OWNERSHIP, Attr.TIMESTAMPS);

    private static final String EXPECTED = "mode,ownership,timestamps,links,xattr,all (comma-separated)";

    private PreserveList() {
    }

    /**
     * The attributes {@code list} names.
     *
     * @param option the option, for messages ({@code --preserve})
     * @throws CliException (usage) for a name cp does not know, or {@code context}, which jfio cannot keep
     */
    static Set<Attr> parse(String option, String list) {
        Set<Attr> out = EnumSet.noneOf(Attr.class);
        for (String raw : list.split(",", -1)) {
            String name = raw.trim().toLowerCase(Locale.ROOT);
            switch (name) {
                case "mode" -> out.add(Attr.MODE);
                case "ownership" -> out.add(Attr.OWNERSHIP);
                case "timestamps" -> out.add(Attr.TIMESTAMPS);
                case "links" -> out.add(Attr.LINKS);
                case "xattr" -> out.add(Attr.XATTR);
                case "all" -> out.addAll(EnumSet.allOf(Attr.class));
                case "context" -> throw new CliException(ExitCodes.USAGE, "invalid " + option + ": context: SELinux "
                        + "security contexts are not supported; expected=" + EXPECTED);
                default -> throw new CliException(ExitCodes.USAGE, "invalid " + option + ": '" + raw
                        + "' is not an attribute; expected=" + EXPECTED);
            }
        }
        return out;
    }
}
