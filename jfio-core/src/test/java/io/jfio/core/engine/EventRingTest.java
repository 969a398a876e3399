package io.jfio.core.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jfio.core.sys.Errno;
import io.jfio.core.sys.Fcntl;
import io.jfio.core.sys.LibC;
import io.jfio.core.sys.SockaddrIn;
import io.jfio.core.sys.Sockets;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The event ring against real descriptors: eventfds for readiness, loopback TCP for sends. */
class EventRingTest {
    private final Arena arena = Arena.ofConfined();
    private final List<Integer> fds = new ArrayList<>();
    private EventRing ring;

    @BeforeEach
    void open() throws IOException {
        ring = EventRing.open();
    }

    @AfterEach
    void close() {
        if (ring != null) ring.close();
        for (int fd : fds) LibC.close(fd);
        arena.close();
    }

    private int eventfd() {
        int fd = LibC.eventfd(0, Fcntl.EFD_NONBLOCK | Fcntl.EFD_CLOEXEC);
        assertTrue(fd >= 0, "eventfd: " + fd);
        fds.add(fd);
        return fd;
    }

    private void signal(int fd) {
        MemorySegment one = Arena.global().allocate(8, 8);
        one.set(ValueLayout.JAVA_LONG, 0, 1L);
        assertEquals(8, LibC.write(fd, one, 8));
    }

    /** A connected loopback socket (non-blocking, as a ring send expects none of its own waits). */
    private int connect(ServerSocket server) {
        int fd = LibC.socket(Sockets.AF_INET, Sockets.SOCK_STREAM | Sockets.SOCK_CLOEXEC, 0);
        assertTrue(fd >= 0);
        fds.add(fd);
        MemorySegment sa = arena.allocate(SockaddrIn.LAYOUT);
        SockaddrIn.set(sa, InetAddress.getLoopbackAddress().getAddress(), server.getLocalPort());
        assertEquals(0, LibC.connect(fd, sa, (int) sa.byteSize()));
        return fd;
    }

    /** Signals {@code fd} from another thread 30 ms from now; the ring's wait ends with one completion, not before. */
    private void awaitOneCompletionWhenSignalledLater(int fd) throws Exception {
        Thread t = new Thread(() -> {
            sleep(30);
            signal(fd);
        });
        t.start();
        long start = System.nanoTime();
        assertEquals(1, ring.await(TimeUnit.SECONDS.toNanos(10)));
        t.join();
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(20), "woke before the write");
    }

    @Test
    void aPollCompletesWhenItsDescriptorBecomesReadable() throws Exception {
        int fd = eventfd();
        int[] got = {Integer.MIN_VALUE};
        ring.pollIn(fd, r -> got[0] = r);
        assertEquals(0, ring.await(0), "nothing readable yet");
        awaitOneCompletionWhenSignalledLater(fd);
        assertEquals(Fcntl.POLLIN, got[0] & Fcntl.POLLIN);
    }

    @Test
    void aReadWaitsForItsDescriptorAndBringsWhatWasWritten() throws Exception {
        int fd = eventfd(); // non-blocking, as the inotify descriptor a watcher reads this way
        MemorySegment into = ring.allocate(8);
        int[] got = {Integer.MIN_VALUE};
        ring.read(fd, into, r -> got[0] = r);
        ring.await(0);
        assumeTrue(got[0] != -Errno.EAGAIN, "this kernel answers a read of a non-blocking descriptor at once");
        assertEquals(Integer.MIN_VALUE, got[0], "nothing to read yet");
        awaitOneCompletionWhenSignalledLater(fd);
        assertEquals(8, got[0]);
        assertEquals(1L, into.get(ValueLayout.JAVA_LONG, 0), "the counter's value, read into the ring's memory");
    }

    @Test
    void closingCancelsAReadInFlightSoWhatComesAfterIsNotTakenByIt() throws Exception {
        int fd = eventfd();
        int[] got = {Integer.MIN_VALUE};
        ring.read(fd, ring.allocate(8), r -> got[0] = r);
        ring.await(0);
        assumeTrue(got[0] != -Errno.EAGAIN, "this kernel answers a read of a non-blocking descriptor at once");
        long start = System.nanoTime();
        ring.close();
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(1), "close waited for the cancellation");
        assertEquals(Integer.MIN_VALUE, got[0], "a cancelled request's completion is taken, not delivered");
        signal(fd);
        MemorySegment b = arena.allocate(8, 8);
        assertEquals(8, LibC.read(fd, b, 8), "the write is still there for a reader of the descriptor");
        assertEquals(1L, b.get(ValueLayout.JAVA_LONG, 0));
    }

    @Test
    void aWaitEndsAtItsTimeout() throws IOException {
        int fd = eventfd();
        ring.pollIn(fd, r -> {
        });
        long start = System.nanoTime();
        assertEquals(0, ring.await(TimeUnit.MILLISECONDS.toNanos(50)));
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(45));
    }

    @Test
    void aSendTheSocketTakesAtOnceDoesNotEndTheWait() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int s = connect(server);
            try (Socket peer = server.accept()) {
                int fd = eventfd();
                MemorySegment bytes = arena.allocateFrom("hello\n");
                bytes = bytes.asSlice(0, 6);
                int[] sent = {Integer.MIN_VALUE};
                int[] polled = {Integer.MIN_VALUE};
                ring.pollIn(fd, r -> polled[0] = r);
                ring.send(s, bytes, Sockets.MSG_NOSIGNAL, r -> sent[0] = r);
                Thread t = new Thread(() -> {
                    sleep(5);
                    signal(fd);
                });
                t.start();
                long start = System.nanoTime();
                ring.await(TimeUnit.SECONDS.toNanos(10));
                long took = System.nanoTime() - start;
                t.join();
                assertEquals(6, sent[0]);
                // Ended by the eventfd (after 5 ms) or, at the latest, the limit for waits that carried a send: not
                // by the send's own completion, which came inside the call.
                assertTrue(took >= TimeUnit.MILLISECONDS.toNanos(4), "the send's completion ended the wait: " + took);
                if (polled[0] == Integer.MIN_VALUE) ring.await(TimeUnit.SECONDS.toNanos(10));
                assertEquals(Fcntl.POLLIN, polled[0] & Fcntl.POLLIN);
                byte[] in = peer.getInputStream().readNBytes(6);
                assertEquals("hello\n", new String(in, java.nio.charset.StandardCharsets.US_ASCII));
            }
        }
    }

    @Test
    void aLargeSendArrivesWholeAndInOrderWhileTheReceiverIsSlow() throws Exception {
        byte[] data = new byte[8 << 20];
        new Random(42).nextBytes(data);
        MemorySegment bytes = arena.allocate(data.length);
        MemorySegment.copy(data, 0, bytes, ValueLayout.JAVA_BYTE, 0, data.length);
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int s = connect(server);
            try (Socket peer = server.accept()) {
                CompletableFuture<byte[]> received = CompletableFuture.supplyAsync(() -> {
                    try (InputStream in = peer.getInputStream()) {
                        sleep(50); // the socket's buffers fill first: the send cannot complete inside its call
                        return in.readNBytes(data.length);
                    } catch (IOException e) {
                        throw new RuntimeException(e);
                    }
                });
                long[] done = {0};
                int[] failed = {0};
                EventRing.Completion[] next = new EventRing.Completion[1];
                next[0] = r -> {
                    if (r < 0) {
                        failed[0] = r;
                        return;
                    }
                    done[0] += r;
                    if (done[0] < data.length) {
                        ring.send(s, bytes.asSlice(done[0]), Sockets.MSG_NOSIGNAL, next[0]);
                    }
                };
                ring.send(s, bytes, Sockets.MSG_NOSIGNAL, next[0]);
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (done[0] < data.length && failed[0] == 0 && System.nanoTime() < deadline) {
                    ring.awaitAny(TimeUnit.SECONDS.toNanos(1));
                }
                assertEquals(0, failed[0]);
                assertEquals(data.length, done[0]);
                assertArrayEquals(data, received.get(30, TimeUnit.SECONDS));
            }
        }
    }

    @Test
    void aSendToAClosedPeerFailsWithItsErrno() throws Exception {
        int s;
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            s = connect(server);
            server.accept().close();
        }
        MemorySegment bytes = arena.allocate(1 << 20);
        int[] result = {0};
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        // The first send may still be taken (the peer's reset comes back with it); a later one fails.
        while (result[0] >= 0 && System.nanoTime() < deadline) {
            result[0] = Integer.MIN_VALUE;
            ring.send(s, bytes, Sockets.MSG_NOSIGNAL, r -> result[0] = r);
            while (result[0] == Integer.MIN_VALUE) ring.awaitAny(TimeUnit.SECONDS.toNanos(1));
        }
        assertTrue(result[0] == -Errno.EPIPE || result[0] == -Errno.ECONNRESET, "result " + result[0]);
    }

    @Test
    void aCancelledPollCompletesWithEcanceled() throws IOException {
        int fd = eventfd();
        int[] got = {Integer.MIN_VALUE};
        int slot = ring.pollIn(fd, r -> got[0] = r);
        ring.await(0);
        ring.cancel(slot);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (got[0] == Integer.MIN_VALUE && System.nanoTime() < deadline) ring.awaitAny(TimeUnit.SECONDS.toNanos(1));
        assertEquals(-Errno.ECANCELED, got[0]);
    }

    @Test
    void onlyTheOwnerThreadMayUseIt() throws Exception {
        assertTrue(ring.ownedByCurrentThread());
        CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(ring::ownedByCurrentThread);
        assertEquals(false, other.get(10, TimeUnit.SECONDS));
    }

    @Test
    void aClosedRingRefusesWork() {
        ring.close();
        ring.close();
        assertThrows(IllegalStateException.class, () -> ring.pollIn(0, r -> {
        }));
        assertThrows(IOException.class, () -> ring.await(0));
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
