package io.jfio.ship.tcp;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * Reads PEM files, the form certificates and keys are usually kept in: X.509 certificates (one or a chain) and
 * unencrypted PKCS#8 private keys ({@code BEGIN PRIVATE KEY}) of RSA, EC or Ed25519. Decoding only; all
 * cryptography is the JDK's.
 *
 * <p>Thread-safe; stateless.
 */
final class Pem {
    private static final String KEY_BEGIN = "-----BEGIN PRIVATE KEY-----";
    private static final String KEY_END = "-----END PRIVATE KEY-----";

    private Pem() {
    }

    /**
     * The certificates in {@code file}, in order.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or holds no certificate
     */
    static List<X509Certificate> certificates(Path file, String what) {
        byte[] bytes = bytes(file, what);
        try {
            List<X509Certificate> certs = new ArrayList<>();
            CertificateFactory f = CertificateFactory.getInstance("X.509");
            for (var c : f.generateCertificates(new ByteArrayInputStream(bytes))) {
                certs.add((X509Certificate) c);
            }
            if (certs.isEmpty()) {
                throw new IllegalArgumentException(what + " " + file
                        + " holds no certificate (PEM, BEGIN CERTIFICATE)");
            }
            return certs;
        } catch (CertificateException e) {
            throw new IllegalArgumentException(what + " " + file + " is not a PEM certificate file: "
                    + e.getMessage());
        }
    }

    /**
     * The private key in {@code file}.
     *
     * @throws IllegalArgumentException naming the file when it cannot be read or holds no usable key
     */
    static PrivateKey privateKey(Path file, String what) {
        String text = new String(bytes(file, what), StandardCharsets.US_ASCII);
        int begin = text.indexOf(KEY_BEGIN);
        int end = text.indexOf(KEY_END);
        if (begin < 0 || end < begin) {
            String hint = text.contains("BEGIN RSA PRIVATE KEY") || text.contains("BEGIN EC PRIVATE KEY")
                    || text.contains("BEGIN ENCRYPTED PRIVATE KEY")
                    ? "; convert it with 'openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY.pk8'" : "";
            throw new IllegalArgumentException(what + " " + file + " holds no unencrypted PKCS#8 key "
                    + "(BEGIN PRIVATE KEY)" + hint);
        }
        byte[] der;
        try {
            der = Base64.getMimeDecoder().decode(text.substring(begin + KEY_BEGIN.length(), end));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " " + file + " is not valid PEM: " + e.getMessage());
        }
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                // not this algorithm: try the next
            }
        }
        throw new IllegalArgumentException(what + " " + file + " holds a key of an unsupported kind "
                + "(RSA, EC and Ed25519 are supported)");
    }

    private static byte[] bytes(Path file, String what) {
        try {
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException(what + " " + file + " does not exist");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot read " + what + " " + file + ": " + e.getMessage());
        }
    }
}
