package io.jfio.core.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@link Engines}: the {@code -Djfio.engine} choice. Sets the property and restores it after each test. */
class EnginesTest {
    private String saved;

    @BeforeEach
    void saveProperty() {
        saved = System.getProperty(Engines.ENGINE_PROP);
    }

    @AfterEach
    void restoreProperty() {
        if (saved == null) {
            System.clearProperty(Engines.ENGINE_PROP);
        } else {
            System.setProperty(Engines.ENGINE_PROP, saved);
        }
    }

    @Test
    void shouldCreateThreadEngineWhenForced() throws Exception {
        System.setProperty(Engines.ENGINE_PROP, "threads");
        assertEquals("threads", Engines.configured());
        try (IoEngine e = Engines.create()) {
            assertInstanceOf(ThreadEngine.class, e);
            assertEquals("threads", e.name());
            assertEquals(0, e.execute(IoOp.nop()));
        }
    }

    @Test
    void shouldAcceptSpellingsAndCase() {
        System.setProperty(Engines.ENGINE_PROP, " IO_URING ");
        assertEquals("uring", Engines.configured());
        System.setProperty(Engines.ENGINE_PROP, "Thread");
        assertEquals("threads", Engines.configured());
        System.clearProperty(Engines.ENGINE_PROP);
        assertEquals("auto", Engines.configured());
    }

    @Test
    void shouldRejectBogusEngineName() {
        System.setProperty(Engines.ENGINE_PROP, "bogus");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Engines::create);
        assertTrue(e.getMessage().contains("jfio.engine=bogus"), e.getMessage());
    }

    @Test
    void shouldCreateSomeWorkingEngineOnAuto() throws Exception {
        System.setProperty(Engines.ENGINE_PROP, "auto");
        try (IoEngine e = Engines.create()) {
            assertTrue(e instanceof UringEngine || Engines.fallbackReason() != null,
                    "auto fell back without saying why");
            assertEquals(0, e.execute(IoOp.nop()));
        }
    }

    @Test
    void shouldRefuseAnInvalidRingCountUnlessTheThreadEngineIsChosen() {
        String rings = System.getProperty(UringEngine.RINGS_PROP);
        System.setProperty(UringEngine.RINGS_PROP, "0");
        try {
            System.setProperty(Engines.ENGINE_PROP, "auto");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, Engines::configured);
            assertTrue(e.getMessage().contains(UringEngine.RINGS_PROP + "=0"), e.getMessage());
            System.setProperty(Engines.ENGINE_PROP, "threads");
            assertEquals("threads", Engines.configured());
        } finally {
            if (rings == null) {
                System.clearProperty(UringEngine.RINGS_PROP);
            } else {
                System.setProperty(UringEngine.RINGS_PROP, rings);
            }
        }
    }
}
