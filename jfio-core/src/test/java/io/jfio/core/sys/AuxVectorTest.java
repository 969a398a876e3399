package io.jfio.core.sys;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class AuxVectorTest {
    @Test
    void pageSizeFromTheAuxiliaryVectorIsWhatGetconfSays() throws Exception {
        Process p = new ProcessBuilder("getconf", "PAGESIZE").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.US_ASCII).trim();
        assertEquals(0, p.waitFor(), out);
        assertEquals(Integer.parseInt(out), AuxVector.pageSize());
        assertEquals(Integer.parseInt(out), LibC.pageSize());
    }

    @Test
    void findsATypeBeforeTheEndAndNothingAfterIt() {
        byte[] v = vector(33, 0x7fff0000L, AuxVector.AT_PAGESZ, 16384, 25, 77, 0, 0, 9, 1);
        assertEquals(16384, AuxVector.find(v, AuxVector.AT_PAGESZ));
        assertEquals(77, AuxVector.find(v, 25));
        assertEquals(0, AuxVector.find(v, 9), "after AT_NULL");
        assertEquals(0, AuxVector.find(v, 31), "missing");
        byte[] truncated = new byte[40]; // the third pair (25, 77) cut in half
        System.arraycopy(v, 0, truncated, 0, truncated.length);
        assertEquals(0, AuxVector.find(truncated, 25), "a pair cut short is not read");
        assertEquals(0, AuxVector.find(new byte[0], AuxVector.AT_PAGESZ));
    }

    private static byte[] vector(long... words) {
        ByteBuffer b = ByteBuffer.allocate(words.length * 8).order(ByteOrder.nativeOrder());
        for (long w : words) b.putLong(w);
        return b.array();
    }
}
