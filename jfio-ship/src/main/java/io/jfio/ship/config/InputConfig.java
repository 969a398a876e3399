package io.jfio.ship.config;

import java.time.Duration;
import java.util.List;

/**
 * One input: the files it names and how their bytes become records.
 *
 * @param name           the input's name (logs, metrics, the batch's {@code input})
 * @param paths          absolute paths or globs ({@code *}, {@code ?}, {@code [..]}, {@code {a,b}}, recursive
 *                       {@code **})
 * @param exclude        globs of files to leave out: a pattern without {@code /} matches the file name, one with
 *                       {@code /} the whole path
 * @param framing        lines or raw bytes
 * @param start          where files never seen before start (files found by the first scan only)
 * @param partialTimeout after how long without growth an unterminated last line ships anyway; {@code null}: never
 * @param sink           the name of the sink this input ships to
 */
public record InputConfig(String name, List<String> paths, List<String> exclude, Framing framing, Start start,
                          Duration partialTimeout, String sink) {

    public InputConfig {
        paths = List.copyOf(paths);
        exclude = List.copyOf(exclude);
    }
}
