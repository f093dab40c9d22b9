/* "export csv FILE --decoder NAME": events of the run through a decoder
 * plugin, rows written with libcsv's quoting (RFC 4180) and CRLF line ends,
 * to a temporary file renamed when complete.  The decoder runs in a child
 * process (plugin_child.h): its crash fails the export, named, and the
 * session goes on. */
#define _GNU_SOURCE /* strchrnul, mremap, sync_file_range */
#include <csv.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "util/afile.h"
#include "util/fd_io.h"
#include "util/suggest.h"
#include "export.h"
#include "plugin/plugin_child.h"
#include "plugin/plugin_guard.h"
#include "plugin/plugin_host.h"
#include "plugin/plugin_run.h"
#include "debug/trace_ring.h"

struct csv_out {
    struct dladbg_host host; /* first: the decoder gets a pointer to it */
    const struct dladbg_decoder *dec;
    const char *path; /* the decoder's file, for a crash's message */
    void *state;      /* the decoder's */
    int fd;           /* -1: measuring, rows counted and sized but not written */
    uint64_t bytes;
    uint64_t written;   /* bytes of rows written to fd */
    uint64_t announced; /* written, as last told to the parent */
    char *line;         /* rows, quoted, written ROWS_BUFFERED bytes at a time */
    size_t line_cap;
    size_t line_used;
    size_t rows;
    bool failed;
    char error[256];
};

static struct csv_out *out_of(const struct dladbg_host *h)
{
    return (struct csv_out *)h->host_private;
}

/* Bytes of rows built before they are written: one write per row cost
 * more than building the row, and a larger buffer costs the child a page
 * fault for every 4 KiB it first writes (a 64 KiB buffer grown from 256
 * bytes was a fifth of a dma export). */
#define ROWS_BUFFERED (16u * 1024u)
/* Room past ROWS_BUFFERED for the row that crosses it: longer rows grow
 * the buffer. */
#define ROW_ROOM (4u * 1024u)
/* Bytes the child writes between its messages to the parent, which starts
 * their way to the disk meanwhile (start_writes). */
#define ANNOUNCE_EVERY (64u * 1024u)
/* The kind of those messages (plugin_child_say). */
#define CSV_WRITTEN 1

/* Room for need more bytes of the row being built.  The buffer is mapped,
 * its pages made in the same call, not malloc'd: in the decoding child a
 * malloc writes the heap's bookkeeping (copy-on-write page faults) and
 * every page of a new buffer faults at its first byte, some 3 us each on
 * the development VM.  A row past ROW_ROOM moves it (mremap). */
static bool line_room(struct csv_out *o, size_t used, size_t need)
{
    if (used + need <= o->line_cap)
        return true;
    size_t cap = o->line_cap ? o->line_cap : ROWS_BUFFERED + ROW_ROOM;
    while (cap < used + need)
        cap *= 2;
    void *p = o->line ? mremap(o->line, o->line_cap, cap, MREMAP_MAYMOVE)
                      : mmap(NULL, cap, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p == MAP_FAILED)
        return false;
    o->line = p;
    o->line_cap = cap;
    return true;
}

/* A cell the fast way could not take (it holds a quote, or the buffer is
 * short of room for it) at o->line + *used, after a comma unless it is the
 * row's first, with room for 6 bytes more after it.  A quote is quoted by
 * libcsv's csv_write: always between double quotes, a quote inside
 * doubled. */
static bool put_cell_slow(struct csv_out *o, size_t *used, const char *c, bool comma)
{
    size_t len = strlen(c);
    if (!line_room(o, *used, 2 * len + 10)) /* quotes doubled, ',' and two around, CRLF */
        return false;
    char *dst = o->line + *used;
    if (comma)
        *dst++ = ',';
    if (memchr(c, '"', len)) {
        dst += csv_write(dst, o->line_cap - (size_t)(dst - o->line), c, len);
    } else {
        *dst++ = '"';
        memcpy(dst, c, len);
        dst += len;
        *dst++ = '"';
    }
    *used = (size_t)(dst - o->line);
    return true;
}

/* Bytes of a cell copied one at a time before the rest is left to libc:
 * most cells are numbers and names shorter than this, for which a call
 * costs more than the bytes; a register's fields (some 100 bytes) are
 * found and copied by strchrnul and memcpy's vector code. */
#define CELL_BYTEWISE 16

/* One cell between double quotes at o->line + *used, after a comma unless
 * it is the row's first, with room for 6 bytes more after it.  Cells seldom
 * hold a quote (put_cell_slow takes those), and are short.  Written through
 * local pointers: stores through o->line made the compiler read o->line and
 * o->line_cap again after every byte. */
static bool put_cell(struct csv_out *o, size_t *used, const char *c, bool comma)
{
    if (o->line_cap - *used < 16 && !line_room(o, *used, 16))
        return false;
    char *dst = o->line + *used;
    const char *lim = o->line + o->line_cap - 8; /* the closing quote, then ',' or CRLF */
    if (comma)
        *dst++ = ',';
    *dst++ = '"';
    const char *p = c;
    for (int k = 0; k < CELL_BYTEWISE && *p; k++, p++) {
        if (*p == '"' || dst == lim)
            return put_cell_slow(o, used, c, comma);
        *dst++ = *p;
    }
    if (*p) {
        const char *end = strchrnul(p, '"');
        size_t n = (size_t)(end - p);
        if (*end || n > (size_t)(lim - dst))
            return put_cell_slow(o, used, c, comma);
        memcpy(dst, p, n);
        dst += n;
    }
    *dst++ = '"';
    *used = (size_t)(dst - o->line);
    return true;
}

/* "written up to" as the child tells the parent: hex digits, by hand
 * (snprintf's code would fault in the child). */
static void announce_written(uint64_t written)
{
    char text[17], *p = text + sizeof text;
    *--p = 0;
    do {
        *--p = "0123456789abcdef"[written & 15u];
        written >>= 4;
    } while (written);
    plugin_child_say(CSV_WRITTEN, p);
}

/* The rows built so far, to the file (when measuring, forgotten). */
static bool flush_rows(struct csv_out *o)
{
    size_t n = o->line_used;
    o->line_used = 0;
    if (o->fd < 0 || n == 0)
        return true;
    if (!fd_write_all(o->fd, o->line, n))
        return false;
    o->written += n;
    if (o->written - o->announced >= ANNOUNCE_EVERY) {
        announce_written(o->written);
        o->announced = o->written;
    }
    return true;
}

/* A row of cells, built in memory after the rows before it and written
 * with them straight to the file's descriptor (no stdio buffer to fill in
 * the child: per-character stdio calls made the export slower than the
 * decoders). */
static bool write_row(struct csv_out *o, const char *const *cells, uint32_t n)
{
    size_t used = o->line_used;
    for (uint32_t i = 0; i < n; i++)
        if (!put_cell(o, &used, cells[i] ? cells[i] : "", i > 0))
            return false;
    if (!line_room(o, used, 2))
        return false;
    o->line[used++] = '\r';
    o->line[used++] = '\n';
    o->bytes += used - o->line_used;
    o->line_used = used;
    return used < ROWS_BUFFERED || flush_rows(o);
}

static void host_row(const struct dladbg_host *h, const char *const *cells)
{
    struct csv_out *o = out_of(h);
    if (o->failed || !cells)
        return;
    if (!write_row(o, cells, o->dec->n_columns)) {
        o->failed = true;
        snprintf(o->error, sizeof o->error, "write failed: %s", strerror(errno));
        return;
    }
    o->rows++;
}

static void host_error(const struct dladbg_host *h, const char *message)
{
    struct csv_out *o = out_of(h);
    if (!o->failed)
        snprintf(o->error, sizeof o->error, "decoder %s: %s", o->dec->name,
                 message ? message : "failed");
    o->failed = true;
}

static bool feed_one(void *ctx, const struct dladbg_event *ev)
{
    struct csv_out *o = ctx;
    plugin_guard_enter(o->dec->name, o->path, "event");
    o->dec->event(o->state, &o->host, ev);
    plugin_guard_leave();
    return !o->failed;
}

/* The header and every row the decoder makes of the run, into o (a file,
 * or nothing when measuring); false with o->error. */
static bool decode_run(struct csv_out *o, const struct plugin_info *pi, struct session *s,
                       struct trace_ring *ring)
{
    struct dla *d = session_dla(s);
    o->dec = pi->dec;
    o->path = pi->path;
    o->host = (struct dladbg_host){.struct_size = sizeof o->host,
                                   .row = host_row,
                                   .error = host_error,
                                   .config = dla_cfg(d)->name,
                                   .host_private = o};
    if (!write_row(o, pi->dec->columns, pi->dec->n_columns)) {
        o->failed = true;
        snprintf(o->error, sizeof o->error, "write failed: %s", strerror(errno));
    }
    struct plugin_run pr;
    plugin_run_init(&pr, s, ring);
    o->host.run = &pr.run;
    plugin_guard_enter(pi->dec->name, pi->path, "open");
    o->state = o->failed ? NULL : pi->dec->open(&o->host);
    plugin_guard_leave();
    if (!o->failed) {
        /* stopped only by a failure, which o->error says */
        plugin_events_each(d, ring, session_finished(s), plugin_decoder_kinds(pi->dec), feed_one,
                           o);
        plugin_guard_enter(pi->dec->name, pi->path, "close");
        pi->dec->close(o->state, &o->host);
        plugin_guard_leave();
    }
    if (!o->failed && !flush_rows(o)) {
        o->failed = true;
        snprintf(o->error, sizeof o->error, "write failed: %s", strerror(errno));
    }
    plugin_run_release(&pr);
    if (o->line)
        munmap(o->line, o->line_cap);
    o->line = NULL;
    return !o->failed;
}

/* A decoder name that is not loaded: the nearest and the names there are,
 * as a misspelt command or value gets them. */
static void no_decoder(const struct plugin_host *ph, const char *decoder, char *err,
                       size_t errlen)
{
    struct suggest near;
    suggest_init(&near, decoder);
    char names[512] = "";
    size_t used = 0;
    for (size_t i = 0; i < plugin_host_count(ph); i++) {
        const char *name = plugin_host_get(ph, i)->facts->name;
        suggest_consider(&near, name);
        if (used < sizeof names)
            used += (size_t)snprintf(names + used, sizeof names - used, "%s%s", i ? ", " : "",
                                     name);
    }
    const char *best = suggest_best(&near);
    snprintf(err, errlen, "no decoder named \"%s\"%s%s%s; %s%s", decoder,
             best ? " (did you mean \"" : "", best ? best : "", best ? "\"?)" : "",
             names[0] ? "decoders: " : "no decoder is loaded (\"plugins load FILE\")", names);
}

static const struct plugin_info *find_decoder(struct plugin_host *ph, const char *decoder,
                                              char *err, size_t errlen)
{
    const struct plugin_info *pi = plugin_host_find(ph, decoder);
    if (!pi)
        no_decoder(ph, decoder, err, errlen);
    else if (!plugin_host_map(ph, pi, err, errlen)) /* its first use maps it */
        return NULL;
    return pi;
}

/* What a decoding child hands back. */
struct decode_result {
    size_t rows;
    uint64_t bytes;
    bool ok;
    char error[256];
};

struct decode_job {
    const struct plugin_info *pi;
    struct session *s;
    struct trace_ring *ring;
    int fd; /* -1: measuring */
};

/* In the child: decode, the rows written to the file's descriptor, which
 * the parent shares (its stream has nothing buffered: it was just opened,
 * and the parent flushes every stream before the fork). */
static void decode_in_child(void *ctx, void *out)
{
    struct decode_job *j = ctx;
    struct decode_result *r = out;
    struct csv_out o = {.fd = j->fd};
    r->ok = decode_run(&o, j->pi, j->s, j->ring);
    r->rows = o.rows;
    r->bytes = o.bytes;
    /* o.error holds its terminator (o starts zeroed, snprintf ends it):
     * copied whole, not through snprintf, whose code the child would fault
     * in for every export */
    _Static_assert(sizeof r->error == sizeof o.error, "the same text");
    memcpy(r->error, o.error, sizeof r->error);
}

/* The parent, while the child decodes: the disk's writes of the rows the
 * child has written so far begin (a hint: on a FIFO or a device it fails
 * and nothing is lost).  The writes cost CPU, the file system's block
 * allocation and the pages' hand-over to the disk, that the commit's fsync
 * paid after the child (a millisecond of a regs export's megabyte); here
 * the parent, idle until the child is done, pays it beside the child. */
struct writes_ahead {
    int fd;
    uint64_t started; /* the writes begun up to here */
};

static void start_writes(void *ctx, int kind, const char *text)
{
    struct writes_ahead *w = ctx;
    if (kind != CSV_WRITTEN)
        return;
    uint64_t written = strtoull(text, NULL, 16);
    if (written > w->started)
        sync_file_range(w->fd, (off_t)w->started, (off_t)(written - w->started),
                        SYNC_FILE_RANGE_WRITE);
    w->started = written;
}

/* The decoder over the run, in a child; false with err (the decoder's
 * error, a write error, or its crash named).  exiting: NULL to wait for the
 * child's end, else it is left exiting there (plugin_child_reap). */
static bool decode_apart(struct decode_job *j, struct decode_result *r, pid_t *exiting, char *err,
                         size_t errlen)
{
    memset(r, 0, sizeof *r);
    struct writes_ahead ahead = {.fd = j->fd};
    if (exiting ? !plugin_child_run_overlapped(decode_in_child, j, r, sizeof *r, start_writes,
                                               &ahead, exiting, err, errlen)
                : !plugin_child_run(decode_in_child, j, r, sizeof *r, err, errlen))
        return false;
    if (!r->ok)
        snprintf(err, errlen, "%s", r->error);
    return r->ok;
}

bool export_csv_measure(struct plugin_host *ph, const char *decoder, struct session *s,
                        struct trace_ring *ring, size_t *rows, uint64_t *bytes, char *err,
                        size_t errlen)
{
    const struct plugin_info *pi = find_decoder(ph, decoder, err, errlen);
    if (!pi)
        return false;
    struct decode_job j = {.pi = pi, .s = s, .ring = ring, .fd = -1};
    struct decode_result r;
    if (!decode_apart(&j, &r, NULL, err, errlen))
        return false;
    *rows = r.rows;
    *bytes = r.bytes;
    return true;
}

bool export_csv(struct plugin_host *ph, const char *decoder, struct session *s,
                struct trace_ring *ring, const char *path, struct export_result *res, char *err,
                size_t errlen)
{
    memset(res, 0, sizeof *res);
    const struct plugin_info *pi = find_decoder(ph, decoder, err, errlen);
    if (!pi)
        return false;
    struct afile af;
    if (!afile_open(&af, path, err, errlen))
        return false;
    struct decode_job j = {.pi = pi, .s = s, .ring = ring, .fd = fileno(af.fp)};
    struct decode_result r;
    char why[768];
    pid_t exiting; /* the child, done, giving back its memory meanwhile */
    if (!decode_apart(&j, &r, &exiting, why, sizeof why)) {
        afile_abort(&af);
        plugin_child_reap(exiting); /* a decoder's error: the child returned */
        snprintf(err, errlen, "%s: %s", path, why);
        return false;
    }
    bool committed = afile_commit(&af, err, errlen);
    plugin_child_reap(exiting);
    if (!committed)
        return false;
    res->rows = r.rows;
    res->files = 1;
    if (ring && trace_ring_dropped(ring))
        snprintf(res->note, sizeof res->note,
                 "the event ring kept the newest %zu events; %llu older ones were dropped",
                 trace_ring_count(ring), (unsigned long long)trace_ring_dropped(ring));
    return true;
}
