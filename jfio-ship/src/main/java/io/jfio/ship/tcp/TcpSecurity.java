package io.jfio.ship.tcp;

import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.List;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;

/**
 * How a TCP connection between {@link TcpSink} and {@link TcpReceiver} is protected: TLS 1.3 with the JDK's
 * implementation (optionally with a client certificate), and a shared token in the handshake ({@link TcpProtocol}).
 * Both are optional and independent; certificates and keys are PEM files ({@link Pem}), the token a file
 * ({@link TokenFile}).
 *
 * <p>Immutable and thread-safe (an {@link SSLContext} may be shared by any number of connections).
 *
 * @param token             the shared token, or null for none
 * @param tls               the TLS context, or null for plain TCP
 * @param requireClientCert receivers: a client must present a certificate signed by the client CA
 */
public record TcpSecurity(byte[] token, SSLContext tls, boolean requireClientCert) {
    /** The only TLS version spoken: its half-close lets a sender end its stream and still read the last count. */
    static final String TLS_VERSION = "TLSv1.3";

    /** Plain TCP, no token. */
    public static TcpSecurity none() {
        return new TcpSecurity(null, null, false);
    }

    /**
     * The receiver's side.
     *
     * @param cert      its certificate chain (PEM), or null for plain TCP
     * @param key       the certificate's private key (PEM, PKCS#8), given with {@code cert}
     * @param clientCa  CA certificates (PEM) that client certificates must chain to, or null to ask for none
     * @param tokenFile the token senders must present, or null for none
     * @throws IllegalArgumentException when a file is missing or unusable, or the combination makes no sense; the
     *                                  message names the file (the caller adds the option's name)
     */
    public static TcpSecurity receiver(Path cert, Path key, Path clientCa, Path tokenFile) {
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("a TLS certificate needs its key and a key its certificate");
        }
        if (clientCa != null && cert == null) {
            throw new IllegalArgumentException("checking client certificates needs TLS: give a certificate and key");
        }
        byte[] token = tokenFile == null ? null : TokenFile.read(tokenFile);
        if (cert == null) {
            return new TcpSecurity(token, null, false);
        }
        KeyManager[] keys = keyManagers(cert, key);
        TrustManager[] trust = clientCa == null ? null : trustManagers(clientCa, "client CA file");
        return new TcpSecurity(token, context(keys, trust), clientCa != null);
    }

    /**
     * The sender's side.
     *
     * @param tls       speak TLS
     * @param ca        CA certificates (PEM) the receiver's certificate must chain to, or null for the JDK's
     * @param cert      a client certificate chain (PEM) to present, or null for none
     * @param key       its private key (PEM, PKCS#8), given with {@code cert}
     * @param tokenFile the token to present, or null for none
     * @throws IllegalArgumentException when a file is missing or unusable, or the combination makes no sense
     */
    public static TcpSecurity sender(boolean tls, Path ca, Path cert, Path key, Path tokenFile) {
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("a TLS client certificate needs its key and a key its certificate");
        }
        if (!tls && (ca != null || cert != null)) {
            throw new IllegalArgumentException("a CA or client certificate is given but TLS is off");
        }
        byte[] token = tokenFile == null ? null : TokenFile.read(tokenFile);
        if (!tls) {
            return new TcpSecurity(token, null, false);
        }
        KeyManager[] keys = cert == null ? null : keyManagers(cert, key);
        TrustManager[] trust = ca == null ? null : trustManagers(ca, "CA file");
        return new TcpSecurity(token, context(keys, trust), false);
    }

    private static SSLContext context(KeyManager[] keys, TrustManager[] trust) {
        try {
            SSLContext c = SSLContext.getInstance(TLS_VERSION);
            c.init(keys, trust, null);
            return c;
        } catch (GeneralSecurityException e) {
            throw new IllegalArgumentException("cannot set up TLS: " + e.getMessage());
        }
    }

    private static KeyManager[] keyManagers(Path cert, Path key) {
        List<X509Certificate> chain = Pem.certificates(cert, "certificate file");
        PrivateKey k = Pem.privateKey(key, "key file");
        if (!chain.get(0).getPublicKey().getAlgorithm().equals(k.getAlgorithm())) {
            throw new IllegalArgumentException("key file " + key + " holds a " + k.getAlgorithm() + " key but the "
                    + "certificate in " + cert + " is for a " + chain.get(0).getPublicKey().getAlgorithm() + " key");
        }
        try {
            // An in-memory keystore only hands the key to the JDK's key manager; its password protects nothing.
            char[] password = new char[0];
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            ks.setKeyEntry("key", k, password, chain.toArray(X509Certificate[]::new));
            KeyManagerFactory f = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            f.init(ks, password);
            return f.getKeyManagers();
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalArgumentException("cannot use certificate " + cert + " with key " + key + ": "
                    + e.getMessage());
        }
    }

    private static TrustManager[] trustManagers(Path file, String what) {
        List<X509Certificate> cas = Pem.certificates(file, what);
        try {
            KeyStore ks = KeyStore.getInstance("PKCS12");
            ks.load(null, null);
            for (int i = 0; i < cas.size(); i++) {
                ks.setCertificateEntry("ca-" + i, cas.get(i));
            }
            TrustManagerFactory f = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            f.init(ks);
            return f.getTrustManagers();
        } catch (GeneralSecurityException | java.io.IOException e) {
            throw new IllegalArgumentException("cannot use " + what + " " + file + ": " + e.getMessage());
        }
    }
}
