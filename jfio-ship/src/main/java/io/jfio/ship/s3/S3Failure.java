package io.jfio.ship.s3;

import java.io.IOException;

/**
 * Immutable. An error answer of the S3 server to a request sent by {@link S3Transfer}: its HTTP status and, when the
 * server said them, S3's error code and message.
 */
final class S3Failure extends IOException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String code;

    S3Failure(int status, String code, String message) {
        super("status=" + status + (code != null ? " code=" + code : "") + (message != null ? " message="
                + message : ""));
        this.status = status;
        this.code = code;
    }

    /** The HTTP status. */
    int status() {
        return status;
    }

    /** S3's error code ({@code NoSuchUpload}, {@code AccessDenied}, ...), or null. */
    String code() {
        return code;
    }
}
