/* O_TMPFILE and renameat2's RENAME_EXCHANGE are Linux's */
#define _GNU_SOURCE
#include "afile.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "path.h"

/* ---------------------------------------------------------------- temporaries */

static void remove_listed(void);

/* The temporaries that exist right now, for the signal handler: a slot is
 * filled with its path first and marked used last, so the handler never
 * sees half a name. */
#define MAX_TEMPS 32
enum temp_kind { TEMP_FREE, TEMP_FILE, TEMP_DIR };
static char temp_path[MAX_TEMPS][4096];
static volatile sig_atomic_t temp_kind[MAX_TEMPS];

static const int cleanup_signals[] = {SIGTERM, SIGINT, SIGHUP};
#define N_CLEANUP_SIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

/* Creating a temporary and listing it, or renaming one and unlisting it,
 * happen with the cleanup signals held back: no moment leaves one unlisted. */
static void hold_signals(sigset_t *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
        sigaddset(&set, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &set, saved);
}

static void release_signals(const sigset_t *saved)
{
    sigprocmask(SIG_SETMASK, saved, NULL);
}

static int temp_list(const char *path, enum temp_kind kind)
{
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_kind[i] == TEMP_FREE) {
            snprintf(temp_path[i], sizeof temp_path[i], "%s", path);
            temp_kind[i] = kind;
            return i;
        }
    return -1; /* more than MAX_TEMPS at once: still removed on every ordinary way out */
}

static void temp_unlist(int slot)
{
    if (slot >= 0)
        temp_kind[slot] = TEMP_FREE;
}

/* mkstemp (a file: returns its descriptor) or mkdtemp (a folder: returns 0)
 * on template, listed for the signal handler in the same breath; -1 on
 * failure with errno set. */
static int create_listed(char *template, enum temp_kind kind, int *slot)
{
    sigset_t saved;
    hold_signals(&saved);
    int fd = kind == TEMP_FILE ? mkstemp(template) : mkdtemp(template) ? 0 : -1;
    int e = errno;
    if (fd >= 0)
        *slot = temp_list(template, kind);
    release_signals(&saved);
    errno = e;
    return fd;
}

/* Remove a folder and the files in it, with async-signal-safe calls only
 * (open, getdents64, unlinkat, rmdir): also called from the signal handler. */
struct linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

static void remove_flat_dir(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        char buf[4096] __attribute__((aligned(8)));
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0)
            for (long off = 0; off < n;) {
                struct linux_dirent64 *e = (struct linux_dirent64 *)(buf + off);
                off += e->d_reclen;
                if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                    unlinkat(fd, e->d_name, 0);
            }
        close(fd);
    }
    rmdir(path);
}

void afile_remove_temporaries(void)
{
    remove_listed();
}

static void remove_listed(void)
{
    for (int i = 0; i < MAX_TEMPS; i++) /* files first: some live in listed folders */
        if (temp_kind[i] == TEMP_FILE)
            unlink(temp_path[i]);
    for (int i = 0; i < MAX_TEMPS; i++)
        if (temp_kind[i] == TEMP_DIR)
            remove_flat_dir(temp_path[i]);
}

static void on_cleanup_signal(int sig)
{
    remove_listed();
    raise(sig); /* SA_RESETHAND: delivered with the default action once we return */
}

void afile_cleanup_on_signals(void)
{
    struct sigaction sa = {.sa_handler = on_cleanup_signal, .sa_flags = SA_RESETHAND};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < N_CLEANUP_SIGNALS; i++)
        sigaction(cleanup_signals[i], &sa, NULL);
}

static mode_t current_umask(void)
{
    mode_t m = umask(022);
    umask(m);
    return m;
}

/* ---------------------------------------------------------------- files */

/* A device or FIFO: written where it is.  A FIFO is opened without waiting
 * for a reader, so that a FIFO nobody reads is an error, not a hang. */
static bool open_in_place(struct afile *af, char *err, size_t errlen)
{
    int fd = open(af->path, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot write: %s", af->path,
                 errno == ENXIO ? "a FIFO with no reader" : strerror(errno));
        return false;
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        snprintf(err, errlen, "%s: %s", af->path, strerror(errno));
        close(fd);
        return false;
    }
    return true;
}

/* path, or the file a symbolic link at path leads to, in af->path; st
 * describes it when *exists. */
static bool resolve_target(struct afile *af, const char *path, struct stat *st, bool *exists,
                           char *err, size_t errlen)
{
    if (snprintf(af->path, sizeof af->path, "%s", path) >= (int)sizeof af->path) {
        snprintf(err, errlen, "%s: path too long", path);
        return false;
    }
    *exists = lstat(path, st) == 0;
    if (*exists && S_ISLNK(st->st_mode)) {
        if (stat(path, st) != 0) {
            snprintf(err, errlen, "%s: a symbolic link to nothing writable (%s)", path,
                     strerror(errno));
            return false;
        }
        /* a link to a device or pipe (/dev/stdout) is written through as it is */
        char *target = S_ISREG(st->st_mode) ? realpath(path, NULL) : NULL;
        if (S_ISREG(st->st_mode)) {
            bool fits = target && snprintf(af->path, sizeof af->path, "%s", target) <
                                      (int)sizeof af->path;
            free(target);
            if (!fits) {
                snprintf(err, errlen, "%s: cannot follow the symbolic link", path);
                return false;
            }
        }
    }
    if (*exists && S_ISDIR(st->st_mode)) {
        snprintf(err, errlen, "%s: is a folder", path);
        return false;
    }
    return true;
}

/* The folder af->path is in ("." for a bare name). */
static void parent_of(const char *path, char *out, size_t len)
{
    snprintf(out, len, "%s", path);
    char *slash = strrchr(out, '/');
    if (!slash)
        snprintf(out, len, ".");
    else if (slash == out)
        out[1] = 0;
    else
        *slash = 0;
}

/* A nameless file in the target's folder (O_TMPFILE): nothing to remove
 * whatever ends the process.  False where the system or file system has
 * none; the caller then makes a named temporary. */
static bool open_unnamed(struct afile *af, mode_t mode)
{
#ifdef O_TMPFILE
    /* linking it later goes through /proc/self/fd: without /proc an
     * unnamed file could never be given its name */
    if (access("/proc/self/fd", X_OK) != 0)
        return false;
    char dir[4096];
    parent_of(af->path, dir, sizeof dir);
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, mode);
    if (fd < 0)
        return false;
    fchmod(fd, mode); /* the umask applied at open: the mode asked for, as a replaced file's */
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        close(fd);
        return false;
    }
    af->unnamed = true;
    return true;
#else
    (void)af;
    (void)mode;
    return false;
#endif
}

/* A folder's entries reach the disk (best effort: a folder that cannot be
 * opened is no reason to fail an export already written). */
static void sync_folder(const char *path)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

/* The unnamed file linked at af->path: directly when nothing is there (no
 * name but the target's ever exists), else under a temporary name renamed
 * over the target (listed while it exists).  0 or an errno value. */
static int link_unnamed(struct afile *af, int fd)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
    /* a file that was there at open is most likely there still: its link
     * would fail (a path lookup for nothing, every export over a file) */
    if (!af->replacing) {
        if (linkat(AT_FDCWD, proc, AT_FDCWD, af->path, AT_SYMLINK_FOLLOW) == 0)
            return 0;
        if (errno != EEXIST)
            return errno;
    }
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        if (snprintf(af->tmp, sizeof af->tmp, "%s.tmp%06x", af->path,
                     (unsigned)(((unsigned long)getpid() * 2654435761u + attempt * 40503u) &
                                0xffffff)) >= (int)sizeof af->tmp)
            return ENAMETOOLONG;
        sigset_t mask;
        hold_signals(&mask);
        int rc = linkat(AT_FDCWD, proc, AT_FDCWD, af->tmp, AT_SYMLINK_FOLLOW);
        int e = errno;
        if (rc == 0)
            af->slot = temp_list(af->tmp, TEMP_FILE);
        release_signals(&mask);
        if (rc != 0 && e == EEXIST)
            continue;
        if (rc != 0)
            return e;
        hold_signals(&mask);
        rc = rename(af->tmp, af->path);
        e = errno;
        if (rc != 0)
            unlink(af->tmp);
        temp_unlist(af->slot);
        af->slot = -1;
        release_signals(&mask);
        af->tmp[0] = 0;
        return rc == 0 ? 0 : e;
    }
    return EEXIST;
}

bool afile_open(struct afile *af, const char *path, char *err, size_t errlen)
{
    af->fp = NULL;
    af->tmp[0] = 0;
    af->slot = -1;
    af->unnamed = false;
    struct stat st;
    bool exists;
    if (!resolve_target(af, path, &st, &exists, err, errlen))
        return false;
    af->replacing = exists;
    if (exists && !S_ISREG(st.st_mode))
        return open_in_place(af, err, errlen);
    if (open_unnamed(af, exists ? st.st_mode & 07777 : 0666 & ~current_umask()))
        return true;
    if (snprintf(af->tmp, sizeof af->tmp, "%s.tmpXXXXXX", af->path) >= (int)sizeof af->tmp) {
        snprintf(err, errlen, "%s: path too long", path);
        af->tmp[0] = 0;
        return false;
    }
    int fd = create_listed(af->tmp, TEMP_FILE, &af->slot);
    if (fd < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", path, strerror(errno));
        af->tmp[0] = 0;
        return false;
    }
    /* mkstemp makes 0600: give the file the mode it would have had */
    fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~current_umask());
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        close(fd);
        afile_abort(af);
        return false;
    }
    return true;
}

bool afile_commit(struct afile *af, char *err, size_t errlen)
{
    bool ok = fflush(af->fp) == 0 && !ferror(af->fp);
    int saved = errno;
    /* the bytes on the disk before the name: a power loss after the rename
     * must not find an empty file (in place: a device has nothing to sync) */
    if (ok && (af->unnamed || af->tmp[0]) && fsync(fileno(af->fp)) != 0) {
        ok = false;
        saved = errno;
    }
    if (ok && af->unnamed) {
        int e = link_unnamed(af, fileno(af->fp));
        if (e) {
            ok = false;
            saved = e;
        }
    }
    if (fclose(af->fp) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    af->fp = NULL;
    if (af->unnamed) {
        af->unnamed = false;
        char dir[4096];
        parent_of(af->path, dir, sizeof dir);
        if (ok)
            sync_folder(dir);
        else
            snprintf(err, errlen, "%s: write failed: %s", af->path, strerror(saved));
        return ok;
    }
    if (!af->tmp[0]) { /* written in place */
        if (!ok)
            snprintf(err, errlen, "%s: write failed: %s", af->path, strerror(saved));
        return ok;
    }
    sigset_t mask;
    hold_signals(&mask);
    if (ok && rename(af->tmp, af->path) != 0) {
        ok = false;
        saved = errno;
    }
    if (ok) {
        temp_unlist(af->slot);
        af->slot = -1;
    }
    release_signals(&mask);
    if (!ok) {
        snprintf(err, errlen, "%s: write failed: %s", af->path, strerror(saved));
        afile_abort(af);
    } else {
        char dir[4096];
        parent_of(af->path, dir, sizeof dir);
        sync_folder(dir);
    }
    return ok;
}

void afile_abort(struct afile *af)
{
    if (af->fp)
        fclose(af->fp); /* an unnamed file is gone with its descriptor */
    af->fp = NULL;
    af->unnamed = false;
    if (af->tmp[0])
        unlink(af->tmp);
    temp_unlist(af->slot);
    af->slot = -1;
}

/* ---------------------------------------------------------------- folders */

/* A folder export's temporaries carry their process's id in the name,
 * "NAME.dladbg-tmp-PID-XXXXXX" (the folder being written, or after the
 * exchange the old one on its way out) and "NAME.dladbg-old-PID-XXXXXX"
 * (the old one, where the system cannot exchange): kill -9 leaves them
 * behind, and the next folder export into the same parent removes those
 * whose process is gone. */
#define TEMP_TAG ".dladbg-"
#define TEMP_RANDOM "XXXXXX"

static bool folder_temp_name(char *out, size_t len, const char *path, const char *kind)
{
    return snprintf(out, len, "%s" TEMP_TAG "%s-%ld-" TEMP_RANDOM, path, kind, (long)getpid()) <
           (int)len;
}

/* The process id a folder temporary's name carries; 0 for any other name. */
static long temp_owner(const char *name)
{
    const char *tag = NULL;
    for (const char *p = strstr(name, TEMP_TAG); p; p = strstr(p + 1, TEMP_TAG))
        tag = p;
    if (!tag)
        return 0;
    const char *p = tag + strlen(TEMP_TAG);
    if (strncmp(p, "tmp-", 4) != 0 && strncmp(p, "old-", 4) != 0)
        return 0;
    p += 4;
    long pid = 0;
    const char *digits = p;
    while (*p >= '0' && *p <= '9' && p - digits < 10)
        pid = pid * 10 + (*p++ - '0');
    if (p == digits || *p != '-' || strlen(p + 1) != strlen(TEMP_RANDOM))
        return 0;
    return pid;
}

/* Whether the process that made a temporary is gone (a process of that id
 * that lives, or that we may not signal, keeps it). */
static bool owner_gone(long pid)
{
    return pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* A folder that holds nothing but regular files, as an export writes it. */
static bool holds_only_files(const char *path)
{
    DIR *dir = opendir(path);
    if (!dir)
        return false;
    bool only_files = true;
    struct dirent *e;
    while (only_files && (e = readdir(dir)) != NULL) {
        struct stat st;
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            only_files = fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                         S_ISREG(st.st_mode);
    }
    closedir(dir);
    return only_files;
}

/* Remove the folder temporaries in parent that a killed export left. */
static void remove_stale_temporaries(const char *parent)
{
    DIR *dir = opendir(parent);
    if (!dir)
        return;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        struct stat st;
        char path[8192];
        if (!owner_gone(temp_owner(e->d_name)) ||
            fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISDIR(st.st_mode) ||
            snprintf(path, sizeof path, "%s/%s", parent, e->d_name) >= (int)sizeof path)
            continue;
        if (holds_only_files(path))
            remove_flat_dir(path);
    }
    closedir(dir);
}

/* An existing folder may be replaced when every entry is a regular file
 * ours() accepts: a folder or link of one of our names (a user's
 * input.txn/notes.md) is not something an export wrote. */
static bool replaceable(const char *path, bool (*ours)(const char *name), char *err, size_t errlen)
{
    DIR *dir = opendir(path);
    if (!dir) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return false;
    }
    bool ok = true;
    struct dirent *e;
    while (ok && (e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        struct stat st;
        bool regular = fstatat(dirfd(dir), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
                       S_ISREG(st.st_mode);
        if (!ours || !ours(e->d_name) || !regular) {
            snprintf(err, errlen,
                     "%s: the folder holds %s, which an export did not write: choose a new or "
                     "empty folder",
                     path, e->d_name);
            ok = false;
        }
    }
    closedir(dir);
    return ok;
}

bool adir_open(struct adir *ad, const char *path, bool (*ours)(const char *name), char *err,
               size_t errlen)
{
    ad->tmp[0] = 0;
    ad->slot = -1;
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    if (n + 64 > sizeof ad->tmp) { /* room for the temporary's suffix */
        snprintf(err, errlen, "%s: path too long", path);
        return false;
    }
    memcpy(ad->path, path, n);
    ad->path[n] = 0;
    struct stat st;
    /* a symbolic link to a folder: the folder it leads to is replaced and
     * the link stays, as file exports follow links */
    if (lstat(ad->path, &st) == 0 && S_ISLNK(st.st_mode) && stat(ad->path, &st) == 0 &&
        S_ISDIR(st.st_mode)) {
        char *target = realpath(ad->path, NULL);
        bool fits = target && strlen(target) + 64 <= sizeof ad->tmp;
        if (fits)
            snprintf(ad->path, sizeof ad->path, "%s", target);
        free(target);
        if (!fits) {
            snprintf(err, errlen, "%s: cannot follow the symbolic link", path);
            return false;
        }
    }
    if (stat(ad->path, &st) == 0) {
        if (!S_ISDIR(st.st_mode)) {
            snprintf(err, errlen, "%s: exists and is not a folder", ad->path);
            return false;
        }
        if (!replaceable(ad->path, ours, err, errlen))
            return false;
    } else {
        char parent[4096];
        snprintf(parent, sizeof parent, "%s", ad->path);
        char *slash = strrchr(parent, '/');
        if (slash && slash != parent) {
            *slash = 0;
            if (path_make_dirs(parent, 0777) != 0) {
                snprintf(err, errlen, "%s: %s", parent, strerror(errno));
                return false;
            }
        }
    }
    char parent[4096];
    parent_of(ad->path, parent, sizeof parent);
    remove_stale_temporaries(parent);
    if (!folder_temp_name(ad->tmp, sizeof ad->tmp, ad->path, "tmp")) {
        snprintf(err, errlen, "%s: path too long", path);
        ad->tmp[0] = 0;
        return false;
    }
    if (create_listed(ad->tmp, TEMP_DIR, &ad->slot) < 0) {
        snprintf(err, errlen, "%s: cannot create: %s", ad->path, strerror(errno));
        ad->tmp[0] = 0;
        return false;
    }
    chmod(ad->tmp, 0777 & ~current_umask()); /* mkdtemp makes 0700 */
    return true;
}

/* The new folder and the old one change places in one step: there is no
 * moment without the folder.  0, or an errno value (ENOSYS, EINVAL where
 * the system or file system cannot). */
static int exchange_folders(const char *a, const char *b)
{
#if defined(SYS_renameat2) && defined(RENAME_EXCHANGE)
    return syscall(SYS_renameat2, AT_FDCWD, a, AT_FDCWD, b, RENAME_EXCHANGE) == 0 ? 0 : errno;
#else
    (void)a;
    (void)b;
    return ENOSYS;
#endif
}

bool adir_commit(struct adir *ad, char *err, size_t errlen)
{
    sync_folder(ad->tmp); /* its files were synced as each was committed */
    struct stat st;
    if (stat(ad->path, &st) == 0) {
        sigset_t mask;
        hold_signals(&mask);
        int e = exchange_folders(ad->tmp, ad->path);
        release_signals(&mask);
        if (e == 0) { /* the temporary name now holds the old folder */
            char dir[4096];
            parent_of(ad->path, dir, sizeof dir);
            sync_folder(dir);
            adir_abort(ad);
            return true;
        }
        if (e != ENOSYS && e != EINVAL) {
            snprintf(err, errlen, "%s: cannot put the folder in place: %s", ad->path,
                     strerror(e));
            adir_abort(ad);
            return false;
        }
    }
    char old[4096 + 64];
    folder_temp_name(old, sizeof old, ad->path, "old");
    sigset_t mask;
    hold_signals(&mask); /* the old folder goes and the new one comes with no signal between */
    bool had_old = stat(ad->path, &st) == 0;
    int saved = 0;
    bool ok = true;
    if (had_old && (!mkdtemp(old) || rename(ad->path, old) != 0)) {
        saved = errno;
        ok = false;
        rmdir(old);
    }
    if (ok && rename(ad->tmp, ad->path) != 0) {
        saved = errno;
        ok = false;
        if (had_old)
            rename(old, ad->path); /* put the previous folder back */
    }
    if (ok) {
        temp_unlist(ad->slot);
        ad->slot = -1;
        if (had_old)
            remove_flat_dir(old);
    }
    release_signals(&mask);
    if (!ok) {
        snprintf(err, errlen, "%s: cannot put the folder in place: %s", ad->path,
                 strerror(saved));
        adir_abort(ad);
    }
    return ok;
}

void adir_abort(struct adir *ad)
{
    if (ad->tmp[0])
        remove_flat_dir(ad->tmp);
    temp_unlist(ad->slot);
    ad->slot = -1;
    ad->tmp[0] = 0;
}
