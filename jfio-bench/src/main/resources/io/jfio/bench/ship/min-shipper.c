/* min-shipper: the least a file shipper does per append, as a floor to compare shippers against: one inotify
   wake-up, a pread of the new bytes of each file written to, one send of them all. No checkpoints, no framing,
   no acknowledgements, no reopening on rotation: not a shipper, a measuring stick.
   Build: cc -O2 -o min-shipper min-shipper.c. Usage: min-shipper DIR PORT [GATHER_US] (the files in DIR must be
   empty when it starts; GATHER_US waits that long after a wake-up for more events before reading). */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SLOTS 4096
struct ent { char name[64]; int fd; long off; int dirty; };
static struct ent tab[SLOTS];
static int dirfd_;

static struct ent *lookup(const char *name) {
    unsigned h = 5381; for (const char *p = name; *p; p++) h = h * 33 + (unsigned char)*p;
    for (unsigned i = 0; i < SLOTS; i++) {
        struct ent *e = &tab[(h + i) % SLOTS];
        if (e->name[0] == 0) {
            snprintf(e->name, sizeof e->name, "%s", name);
            e->fd = openat(dirfd_, name, O_RDONLY | O_CLOEXEC | O_NOATIME);
            if (e->fd < 0) e->fd = openat(dirfd_, name, O_RDONLY | O_CLOEXEC);
            e->off = 0; return e;
        }
        if (strcmp(e->name, name) == 0) return e;
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: cref DIR PORT [GATHER_US]\n"); return 2; }
    long gather = argc > 3 ? atol(argv[3]) : 0;
    dirfd_ = open(argv[1], O_RDONLY | O_DIRECTORY);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(atoi(argv[2])) };
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (connect(s, (struct sockaddr *)&a, sizeof a) < 0) { perror("connect"); return 3; }
    int one = 1; setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    int in = inotify_init1(IN_CLOEXEC);
    inotify_add_watch(in, argv[1], IN_MODIFY);
    static char ev[65536] __attribute__((aligned(8)));
    static char buf[1 << 20];
    struct ent *dirty[SLOTS];
    for (;;) {
        ssize_t n = read(in, ev, sizeof ev);
        if (n <= 0) { if (errno == EINTR) continue; return 1; }
        if (gather > 0) {
            struct timespec t = { 0, gather * 1000 }; nanosleep(&t, NULL);
            int fl = fcntl(in, F_GETFL); fcntl(in, F_SETFL, fl | O_NONBLOCK);
            ssize_t m = read(in, ev + n, sizeof ev - n);
            if (m > 0) n += m;
            fcntl(in, F_SETFL, fl);
        }
        int nd = 0;
        for (char *p = ev; p < ev + n;) {
            struct inotify_event *e = (struct inotify_event *)p;
            if (e->len) {
                struct ent *x = lookup(e->name);
                if (x && x->fd >= 0 && !x->dirty) { x->dirty = 1; dirty[nd++] = x; }
            }
            p += sizeof *e + e->len;
        }
        size_t len = 0;
        for (int i = 0; i < nd; i++) {
            struct ent *x = dirty[i]; x->dirty = 0;
            for (;;) {
                ssize_t r = pread(x->fd, buf + len, sizeof buf - len, x->off);
                if (r <= 0) break;
                x->off += r; len += r;
                if (len == sizeof buf) { if (send(s, buf, len, 0) < 0) return 1; len = 0; }
                else break; /* a short read: at the end of the file */
            }
        }
        for (size_t o = 0; o < len;) { ssize_t w = send(s, buf + o, len - o, 0); if (w < 0) return 1; o += w; }
    }
}
