package io.jfio.ship.tcp;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

/**
 * Reads the shared token that a sender presents and a receiver checks ({@link TcpProtocol}). The token comes from a
 * file, never from the command line, where {@code ps} would show it to every user of the machine.
 *
 * <p>Thread-safe; stateless.
 */
public final class TokenFile {
    /** The shortest token accepted: shorter ones can be guessed. */
    public static final int MIN_LENGTH = 16;
    /** The longest token accepted: the handshake line stays short. */
    public static final int MAX_LENGTH = 200;

    private TokenFile() {
    }

    /**
     * The token in {@code file}: its content without the trailing line end, 16 to 200 visible ASCII characters
     * (e.g. {@code openssl rand -hex 32}). The file must not be readable by others (mode 600 or 640).
     *
     * @throws IllegalArgumentException naming the file and what is wrong with it
     */
    public static byte[] read(Path file) {
        byte[] raw;
        try {
            Set<PosixFilePermission> mode = Files.getPosixFilePermissions(file);
            if (mode.contains(PosixFilePermission.OTHERS_READ)) {
                throw new IllegalArgumentException("token file " + file + " is readable by every user; make it "
                        + "private (chmod 600)");
            }
            raw = Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("token file " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read token file " + file + ": " + e.getMessage());
        }
        String text = new String(raw, StandardCharsets.US_ASCII).strip();
        if (text.length() < MIN_LENGTH || text.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("token file " + file + " must hold " + MIN_LENGTH + " to "
                    + MAX_LENGTH + " characters (e.g. from 'openssl rand -hex 32'), holds " + text.length());
        }
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c < 0x21 || c > 0x7e) {
                throw new IllegalArgumentException("token file " + file + " must hold one line of visible ASCII "
                        + "characters (no spaces), found character " + (int) c + " at " + i);
            }
        }
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
