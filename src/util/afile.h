/* Files written whole or not at all: output goes to a temporary name in the
 * same directory and is renamed over the target only when complete, so a
 * failure never leaves half a file behind.
 *
 * Only regular files (or new ones) are replaced that way.  A character or
 * block device or a FIFO is written in place (there is nothing to rename
 * over: "-o /dev/stdout" works, "/dev/full" reports the write error); a
 * symbolic link is followed and its target written; a directory, a dangling
 * link or a FIFO with no reader is refused with a message.  New files get
 * 0666 less the umask, replaced ones keep their permissions.
 *
 * On Linux a file is written unnamed (O_TMPFILE) and linked into place when
 * complete, so not even kill -9 leaves a temporary; elsewhere, and for
 * folders, temporaries still open are listed so that a fatal signal in
 * batch mode removes them (afile_cleanup_on_signals).  A folder's temporary
 * carries the process's id ("NAME.dladbg-tmp-PID-XXXXXX"): one that kill -9
 * left is removed by the next adir_open in the same parent once its process
 * is gone.  Data is fsynced
 * before it takes the target's name, so a power loss leaves the old file
 * or the new one, never an empty one.  A folder replaces the old one in a
 * single exchange (renameat2 RENAME_EXCHANGE) where the system has it. */
#ifndef DLADBG_AFILE_H
#define DLADBG_AFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct afile {
    FILE *fp;
    char path[4096];
    char tmp[4096]; /* "" when written in place or unnamed */
    int slot;       /* in the list of temporaries, or -1 */
    bool unnamed;   /* an O_TMPFILE file, linked at path on commit */
    bool replacing; /* path named a file at open */
};

/* Open path for writing (binary); false with a message in err on failure. */
bool afile_open(struct afile *af, const char *path, char *err, size_t errlen);
/* Flush, close and rename into place; false (and the temporary removed) on error. */
bool afile_commit(struct afile *af, char *err, size_t errlen);
/* Give up: close and remove the temporary. */
void afile_abort(struct afile *af);

/* A folder written whole or not at all: its files are written into a
 * temporary folder next to it, which replaces it on commit.  An existing
 * folder is replaced only when it is empty or every entry satisfies ours()
 * (files a previous export wrote); otherwise adir_open refuses. */
struct adir {
    char path[4096];
    char tmp[4096]; /* write the files here */
    int slot;
};

bool adir_open(struct adir *ad, const char *path, bool (*ours)(const char *name), char *err,
               size_t errlen);
bool adir_commit(struct adir *ad, char *err, size_t errlen);
/* Give up: remove the temporary folder and the files in it. */
void adir_abort(struct adir *ad);

/* Batch mode: SIGTERM, SIGINT and SIGHUP remove the temporaries still open,
 * then end the process as the signal would have (exit status 128 + signal). */
void afile_cleanup_on_signals(void);
/* Remove the temporaries still open now, with async-signal-safe calls only:
 * for a handler about to end the process (a plugin's crash, the TUI's
 * second SIGTERM). */
void afile_remove_temporaries(void);

#endif
