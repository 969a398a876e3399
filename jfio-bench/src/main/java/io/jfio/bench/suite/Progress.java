package io.jfio.bench.suite;

import java.io.PrintWriter;

/**
 * Progress messages: on a terminal one live line rewritten in place ({@code \r}), otherwise plain lines.
 *
 * <p>Thread-safe: all methods synchronize.
 */
public final class Progress {
    private final PrintWriter err;
    private final boolean live;
    private int lastLength;

    /**
     * @param err  where progress goes
     * @param live rewrite one line in place (a terminal: {@code System.console() != null})
     */
    public Progress(PrintWriter err, boolean live) {
        this.err = err;
        this.live = live;
    }

    /** A transient status: the live line on a terminal, a plain line otherwise. */
    public synchronized void status(String s) {
        if (live) {
            String line = s.length() > 150 ? s.substring(0, 147) + "..." : s;
            StringBuilder sb = new StringBuilder("\r").append(line);
            for (int i = line.length(); i < lastLength; i++) sb.append(' ');
            err.print(sb);
            lastLength = line.length();
        } else {
            err.println(s);
        }
        err.flush();
    }

    /** A line that stays (warnings, results): ends the live line first. */
    public synchronized void println(String s) {
        if (live && lastLength > 0) {
            err.print('\r');
            for (int i = 0; i < lastLength; i++) err.print(' ');
            err.print('\r');
            lastLength = 0;
        }
        err.println(s);
        err.flush();
    }

    /** Ends the live line. */
    public synchronized void done() {
        if (live && lastLength > 0) {
            err.println();
            lastLength = 0;
        }
        err.flush();
    }
}
