package io.jfio.ship.sink;

import java.util.Arrays;

/**
 * Not thread-safe; owned by the {@link CommitLog} that made it.
 *
 * <p>An open-addressing hash index (linear probing) from a source's key in the commit log (device, inode, content;
 * see {@link CommitLog#content}) to an int id: a staged position's slot, or an entry's offset in the log's bytes read
 * back. The table holds only the ids, 4 bytes a slot, no object per key: the keys stay where they already are and
 * are read back through {@link Keys} to compare and to rehash. The table is kept at most half full.
 */
final class KeyIndex {
    /** Where the keys of the ids live. */
    interface Keys {
        long device(int id);

        long inode(int id);

        long content(int id);
    }

    private static final int MIN_CAPACITY = 16;

    private final Keys keys;
    private final int keepCapacity;
    /** id + 1 per slot; 0: empty. */
    private int[] slots = new int[MIN_CAPACITY];
    private int size;

    /**
     * @param keys      the keys of the ids stored
     * @param keepBytes the largest table {@link #clear()} keeps for the next use
     */
    KeyIndex(Keys keys, int keepBytes) {
        this.keys = keys;
        this.keepCapacity = Math.max(MIN_CAPACITY, keepBytes / Integer.BYTES);
    }

    /** How many keys are stored. */
    int size() {
        return size;
    }

    /** The id stored for the key, or -1. */
    int get(long device, long inode, long content) {
        int mask = slots.length - 1;
        for (int i = hash(device, inode, content) & mask; ; i = (i + 1) & mask) {
            int id = slots[i] - 1;
            if (id < 0 || matches(id, device, inode, content)) return id;
        }
    }

    /** Stores {@code id} for the key, replacing the id stored for it; returns the id replaced, or -1. */
    int put(long device, long inode, long content, int id) {
        return store(device, inode, content, id, true);
    }

    /** Stores {@code id} for the key unless an id is stored for it; returns that id, or -1 when {@code id} went in. */
    int putIfAbsent(long device, long inode, long content, int id) {
        return store(device, inode, content, id, false);
    }

    private int store(long device, long inode, long content, int id, boolean replace) {
        if (id < 0 || id == Integer.MAX_VALUE) throw new IllegalArgumentException("id " + id);
        // Grown before the new id goes in: a rehash reads only the keys of ids already stored.
        if (2 * (size + 1) > slots.length) grow();
        int mask = slots.length - 1;
        for (int i = hash(device, inode, content) & mask; ; i = (i + 1) & mask) {
            int old = slots[i] - 1;
            if (old < 0) {
                slots[i] = id + 1;
                size++;
                return -1;
            }
            if (matches(old, device, inode, content)) {
                if (replace) slots[i] = id + 1;
                return old;
            }
        }
    }

    /** How many slots {@link #idAt} covers. */
    int capacity() {
        return slots.length;
    }

    /** The id in slot {@code slot}, or -1 when it is empty: every stored id once, over {@code [0, capacity())}. */
    int idAt(int slot) {
        return slots[slot] - 1;
    }

    /** Forgets every key; a table grown past the bound given at construction is let go. */
    void clear() {
        if (slots.length > keepCapacity) {
            slots = new int[MIN_CAPACITY];
        } else if (size > 0) {
            Arrays.fill(slots, 0);
        }
        size = 0;
    }

    private boolean matches(int id, long device, long inode, long content) {
        return keys.inode(id) == inode && keys.device(id) == device && keys.content(id) == content;
    }

    private void grow() {
        int[] old = slots;
        if (old.length >= 1 << 30) throw new IllegalStateException("key index full: size=" + size);
        slots = new int[old.length * 2];
        int mask = slots.length - 1;
        for (int s : old) {
            if (s == 0) continue;
            int id = s - 1;
            int i = hash(keys.device(id), keys.inode(id), keys.content(id)) & mask;
            while (slots[i] != 0) i = (i + 1) & mask;
            slots[i] = s;
        }
    }

    /** The key's hash: the three words mixed, then the finaliser of MurmurHash3 (inodes are often consecutive). */
    private static int hash(long device, long inode, long content) {
        long h = inode * 0x9E3779B97F4A7C15L + device;
        h = h * 0x9E3779B97F4A7C15L + content;
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return (int) h;
    }
}
