package io.jfio.core.sys;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.OptionalInt;

/**
 * User names to user IDs through the C library's {@code getpwnam_r}, so that every source the system's name service
 * has (files, LDAP, systemd's dynamic users) answers, as for {@code ls} and {@code id}.
 *
 * <p>Thread-safe; stateless.
 */
public final class Users {
    private static final MethodHandle GETPWNAM_R = Native.plainCall("getpwnam_r", FunctionDescriptor.of(
            ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG,
            ValueLayout.ADDRESS));
    /** struct passwd on LP64 Linux: pw_name, pw_passwd, then pw_uid. */
    private static final long PASSWD_SIZE = 48;
    private static final long PW_UID = 16;

    private Users() {
    }

    /** The user ID of the user named {@code name}, or empty when there is none. */
    public static OptionalInt uid(String name) {
        if (name.isEmpty() || name.indexOf('\0') >= 0) return OptionalInt.empty();
        try (Arena a = Arena.ofConfined()) {
            MemorySegment pwd = a.allocate(PASSWD_SIZE, 8);
            MemorySegment result = a.allocate(ValueLayout.ADDRESS);
            for (long size = 4096; size <= 1 << 20; size *= 4) {
                MemorySegment buf = a.allocate(size);
                int r = (int) GETPWNAM_R.invokeExact(a.allocateFrom(name), pwd, buf, size, result);
                if (r == Errno.ERANGE) continue;
                if (r != 0 || result.get(ValueLayout.ADDRESS, 0).equals(MemorySegment.NULL)) {
                    return OptionalInt.empty();
                }
                return OptionalInt.of(pwd.get(ValueLayout.JAVA_INT, PW_UID));
            }
            return OptionalInt.empty();
        } catch (Throwable t) {
            throw new IllegalStateException("getpwnam_r failed for user " + name, t);
        }
    }
}
